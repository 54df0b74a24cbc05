"""Conformance as users meet it: torch with causal and a mask, targets from the current directory
or a file, JAX's declared capabilities, hints in the user's words, shrunk counterexamples with a
reproduction, and the calibration of the protocol on a CI-sized sample."""

import re
import sys
import textwrap

import numpy as np
import pytest

import numeric
from symattn.products import conformance
from symattn.products.cli import main
from symattn.products.conformance import calibrate
from symattn.products.conformance.adapters import fold_causal
from symattn.products.conformance.cases import Case, Space, cases, shrink
from symattn.products.conformance.hints import PYTHON_TO_CLI, for_cli

from . import broken_attention as broken

pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered in matmul:RuntimeWarning")


# ------------------------------------------------------------------------------------ causal + mask
@pytest.mark.parametrize("causal, dtype, offset", [("top_left", bool, 0), ("bottom_right", bool, 2),
                                                   ("top_left", np.float32, 0), ("bottom_right", np.float64, 2)])
def test_fold_causal_hides_exactly_the_future_keys(causal, dtype, offset):
    rng = np.random.default_rng(0)
    allowed = rng.random((3, 5)) < 0.7
    mask = allowed if dtype is bool else np.where(allowed, 0.0, -np.inf).astype(dtype)
    folded = fold_causal(mask, causal)
    assert folded.dtype == mask.dtype and folded.shape == (3, 5)
    may = folded if dtype is bool else folded == 0
    i, j = np.indices((3, 5))
    assert np.array_equal(may, allowed & (j <= i + offset))


def test_torch_sdpa_with_causal_and_a_mask_is_checked_not_refused():
    torch = pytest.importorskip("torch")
    sdpa = torch.nn.functional.scaled_dot_product_attention
    r = conformance.check(sdpa, causal=True, mask=True, dtype="float32", max_n=64, examples=6,
                          adapter=conformance.torch_adapter())
    for name in ("agrees_with_reference", "causal_no_future", "convex_hull", "deterministic"):
        assert r.by_name(name).status == "pass", r.table()


# ------------------------------------------------------------------------------------ targets
@pytest.fixture
def user_dir(tmp_path, monkeypatch):
    (tmp_path / "my_kernel.py").write_text(textwrap.dedent('''
        import numeric
        from helper_mod import SCALE  # its own helper module, next to it

        def attn(q, k, v, **opts):
            return numeric.attention(q, k, v, **opts) * SCALE
    '''))
    (tmp_path / "helper_mod.py").write_text("SCALE = 1.0\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "kern.py").write_text("import numeric\nattention = numeric.attention\n")
    monkeypatch.chdir(tmp_path)
    # as from the installed `symattn` script: the current directory is not on sys.path
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    for name in ("my_kernel", "helper_mod", "pkg", "pkg.kern"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    return tmp_path


@pytest.mark.parametrize("spec", ["my_kernel:attn", "pkg.kern:attention", "my_kernel.py:attn",
                                  "./pkg/kern.py:attention", "{dir}/my_kernel.py:attn"])
def test_targets_load_from_the_current_directory_and_from_files(spec, user_dir):
    fn = conformance.load_callable(spec.format(dir=user_dir))
    q = np.ones((1, 1, 2, 3))
    assert np.allclose(fn(q, q, q), numeric.attention(q, q, q))


@pytest.mark.parametrize("spec, message", [
    ("no_such_module:f", "no module named 'no_such_module' (looked in the current directory"),
    ("missing.py:f", "missing.py: no such file"),
    ("my_kernel.py:nope", "has no attribute 'nope'"),
    ("not a module:f", "neither a dotted module name nor a .py file"),
])
def test_bad_targets_say_what_is_wrong(spec, message, user_dir):
    with pytest.raises(ValueError) as info:
        conformance.load_callable(spec)
    assert message in str(info.value)


def test_cli_conform_runs_a_file_target(user_dir, capsys):
    assert main(["conform", "my_kernel.py:attn", "--examples", "3", "--max-n", "16"]) == 0
    assert "PASS" in capsys.readouterr().out


# ------------------------------------------------------------------------------------ JAX declares
def test_jax_adapter_declares_value_dim_and_dtypes_so_a_plain_check_runs():
    jax = pytest.importorskip("jax")
    adapter = conformance.jax_adapter()
    assert adapter.value_dim == "same" and adapter.dtypes[0] == ("float64" if jax.config.jax_enable_x64 else "float32")
    r = conformance.check(jax.nn.dot_product_attention, max_n=32, examples=4, adapter=adapter)
    assert r.options["value_dim"] == "same" and r.options["dtype"] == adapter.dtypes[0]
    assert r.by_name("agrees_with_reference").status == "pass", r.table()
    with pytest.raises(ValueError, match="needs d_v = d"):
        conformance.check(jax.nn.dot_product_attention, value_dim="any", adapter=adapter)


# ------------------------------------------------------------------------------------ hints
def test_every_cli_hint_is_a_flag_of_symattn_conform():
    from symattn.products.cli import build_parser

    conform = build_parser()._subparsers._group_actions[0].choices["conform"]
    flags = {opt for action in conform._actions for opt in action.option_strings}
    for python, cli in PYTHON_TO_CLI.items():
        named = set(re.findall(r"--[a-z][a-z-]*", cli))
        assert named and named <= flags, (python, cli)
        assert for_cli(f"declare {python}.") == f"declare {cli}."


def test_hints_name_flags_from_the_cli_and_arguments_from_python(capsys):
    assert main(["conform", "numeric:attention", "--examples", "3", "--max-n", "16"]) == 0
    out = capsys.readouterr().out
    assert "--returns-lse" in out and "--kv-heads" in out and "returns_lse=True" not in out
    r = conformance.check(numeric.attention, examples=3, max_n=16)
    assert "returns_lse=True" in r.by_name("lse_agrees_with_reference").detail
    assert main(["conform", "numeric:attention", "--dtype", "bfloat16"]) == 2
    assert "--adapter torch" in capsys.readouterr().err


# ------------------------------------------------------------------------------------ shrinking
DOMAIN = cases(Space(max_n=512)).symattn_domain
BIG = Case(b=3, h=3, n_q=95, n_k=383, d=224, d_v=160, seed=7, scale=3.0)


@pytest.mark.parametrize("fails, expected", [
    (lambda c: c.n_k > 64, dict(b=1, h=1, n_q=1, n_k=65, d=1, d_v=1, scale=1.0)),
    (lambda c: c.n_k > 64 and c.d > 3, dict(b=1, h=1, n_q=1, n_k=65, d=4, d_v=1, scale=1.0)),
    (lambda c: c.b * c.h >= 2 and c.n_q >= 16, dict(b=1, h=2, n_q=16, n_k=1, d=1, d_v=1)),
    (lambda c: c.scale > 1 and c.d_v > 100, dict(b=1, h=1, n_q=1, n_k=1, d=1, d_v=111, scale=3.0)),
])
def test_shrink_reaches_a_case_no_single_field_of_which_can_be_smaller(fails, expected):
    small = shrink(BIG, fails, DOMAIN, budget=500)
    assert fails(small)
    assert {key: getattr(small, key) for key in expected} == expected
    assert not any(fails(c) for c in DOMAIN.smaller(small))


def test_a_large_first_failure_is_reported_shrunk_with_a_three_line_reproduction():
    r = conformance.check(broken.keys_permuted_without_values, examples=15, max_n=512)
    cex = r.by_name("key_value_permutation").counterexample
    lines = cex.splitlines()
    assert len(lines) == 3 and lines[0].startswith("shapes q (1, 1, 1, ")
    seed = int(re.search(r"seed (\d+):", lines[1]).group(1))
    assert "draws q, then k, then v" in lines[1]
    # the draw order the reproduction states is the one the arrays come from
    fields = dict(re.findall(r"(\w+)=([\d.]+)", lines[2]))
    case = Case(**{k: (float(v) if k == "scale" else int(v)) for k, v in fields.items()})
    q, k, v = case.arrays()
    rng = np.random.default_rng(seed)
    again = [rng.standard_normal(a.shape) for a in (q, k, v)]
    again[0] = again[0] * case.scale
    assert all(np.array_equal(a, b) for a, b in zip((q, k, v), again))
    assert f"q {q.shape}" in lines[0] and f"k {k.shape}" in lines[0]


# ------------------------------------------------------------------------------------ calibration
@pytest.mark.parametrize("peer", ["numeric.attention", "numeric.tiled", "torch SDPA math", "torch SDPA flash", "jax"])
def test_calibration_sample_every_peer_stays_inside_the_bound(peer):
    if peer.startswith("torch"):
        pytest.importorskip("torch")
    if peer == "jax":
        pytest.importorskip("jax")
    rows = calibrate.calibrate(10, max_n=48, only=peer, dtypes=["float32"])
    assert rows and all(r["cases"] == 10 for r in rows)
    for r in rows:
        assert set(r["worst"]) == {"out", "dq", "dk", "dv"}
        worst = {k: v[0] for k, v in r["worst"].items()}
        assert max(worst.values()) <= 1.0, (r["peer"], worst, r["worst_case"])


def test_calibration_table_is_markdown_with_one_row_per_peer_and_dtype():
    rows = [{"peer": "p", "dtype": "float32", "cases": 3, "worst": {"out": [0.5, 0.9], "dq": [0.25, 1.5]}}]
    table = calibrate.format_table(rows).splitlines()
    assert table[0] == "| peer | dtype | cases | out | dq | dk | dv |"
    assert table[2] == "| p | float32 | 3 | 0.50 (0.90) | 0.25 (1.50) | -- | -- |"


def test_calibration_written_after_every_case_resumes_to_the_same_figures(tmp_path):
    """A stopped run keeps its figures in the file; resumed, it draws the cases an uninterrupted run
    draws (same seed), so 2 + 1 resumed cases give the figures of 3 in one go; a deadline passed
    starts no case; a file that is no calibration is refused."""
    kw = {"max_n": 16, "only": "numeric.attention", "dtypes": ["float32", "float16"], "seed": 3}
    path = tmp_path / "cal.json"
    first = calibrate.calibrate(2, out=str(path), **kw)
    assert [r["cases"] for r in calibrate.load(str(path))] == [2, 2] == [r["cases"] for r in first]
    resumed = calibrate.calibrate(3, out=str(path), resume=True, **kw)
    fresh = calibrate.calibrate(3, **kw)
    assert [(r["cases"], r["worst"]) for r in resumed] == [(r["cases"], r["worst"]) for r in fresh]
    assert [(r["cases"], r["worst"]) for r in calibrate.load(str(path))] == [(r["cases"], r["worst"]) for r in fresh]
    other_seed = calibrate.calibrate(3, out=str(path), resume=True, **{**kw, "seed": 4})  # not the same run
    assert [r["cases"] for r in other_seed] == [3, 3] and other_seed[0]["worst"] != fresh[0]["worst"]
    assert [r["cases"] for r in calibrate.calibrate(5, deadline=0.0, **kw)] == [0, 0]
    path.write_text('{"not": "rows"}')
    with pytest.raises(ValueError, match="not a calibration file"):
        calibrate.calibrate(1, out=str(path), resume=True, **kw)


@pytest.mark.parametrize("argv, message", [
    (["--resume"], "--resume needs --calibration-out"),
    (["--until", "7h30"], "--until must be HH:MM"),
    (["--calibration-out", "/nonexistent-dir/cal.json"], "no directory"),
])
def test_calibration_usage_errors_exit_2_before_any_case(argv, message, capsys):
    assert main(["conform", "--calibrate", "--cases", "1", *argv]) == 2
    assert message in capsys.readouterr().err
