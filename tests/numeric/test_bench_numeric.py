"""The benchmark runs end to end at toy sizes and reports what it promises (no timing asserted)."""

from __future__ import annotations

import argparse
import json

import numpy as np
import pytest

from numeric.bench import (
    attention_flops,
    format_table,
    memory_profile,
    naive_bytes,
    run_bench,
)


def test_run_bench_reports_every_implementation_ratio_and_memory_at_toy_sizes():
    result = run_bench([32, 48], d=8, repeats=2, budget=1.0, use_torch=False, matmul_n=64)
    json.dumps(result)  # JSON-ready
    assert [row["n"] for row in result["rows"]] == [32, 48]
    for row in result["rows"]:
        for key in ("tiled_fwd", "tiled_bwd", "naive_fwd", "naive_bwd"):
            assert row[f"{key}_s"] > 0 and row[f"{key}_min_s"] <= row[f"{key}_s"]
            assert row[f"{key}_peak_mib"] > 0
        assert row["ratios"]["naive/tiled_fwd"] > 0 and row["ratios"]["tiled/torch_fwd"] is None
        assert "torch peer disabled" in row["notes"]
    assert result["machine"]["matmul_gflops"] > 0
    table = format_table(result)
    assert "tiled/torch" in table and "     32   fwd" in table


def test_naive_is_skipped_with_a_note_above_the_memory_cap():
    result = run_bench([64], d=4, repeats=1, use_torch=False, matmul_n=64, naive_cap_mib=0.01, memory=False)
    row = result["rows"][0]
    assert "naive_fwd_s" not in row and row["ratios"]["naive/tiled_fwd"] is None
    assert any("naive skipped at n=64" in note for note in row["notes"])


def test_torch_peer_is_timed_when_importable():
    pytest.importorskip("torch", reason="torch is an optional peer")
    row = run_bench([64], d=8, repeats=1, memory=False, matmul_n=64)["rows"][0]
    assert row["torch_fwd_s"] > 0 and row["torch_bwd_s"] > 0
    assert row["ratios"]["tiled/torch_bwd"] > 0


def test_memory_profile_shows_the_naive_peak_growing_quadratically_and_tiled_not():
    # Sizes above the default block sizes, where the tiled kernel's tiles no longer grow with n.
    rows = memory_profile((2048, 4096), d=16)
    small, big = rows
    assert big["naive_peak_bytes"] > 3.5 * small["naive_peak_bytes"]  # 4x the n^2 matrix
    assert big["tiled_peak_bytes"] < 2 * small["tiled_peak_bytes"]
    assert big["tiled_peak_bytes"] < big["naive_peak_bytes"] / 4


def test_flop_and_memory_models():
    assert attention_flops(8, 8, 2) == 4 * 64 * 2
    assert attention_flops(8, 8, 2, causal=True) == 4 * (64 - 28) * 2  # 36 visible pairs
    assert naive_bytes(10, 10, batch=2, itemsize=8, backward=True) == 5 * 100 * 2 * 8


def test_cli_plugin_interface_and_json_output(capsys):
    from symattn.products.commands import bench

    assert isinstance(bench.HELP, str) and "\n" not in bench.HELP
    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    args = parser.parse_args(["--sizes", "32", "--d", "4", "--repeats", "1", "--no-torch", "--matmul-n", "64",
                              "--json"])
    assert bench.run(args) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["rows"][0]["n"] == 32


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--sizes", "0"], "--sizes must be positive integers, got '0'"),
        (["--sizes", "a,b"], "--sizes must be positive integers, got 'a,b'"),
        (["--block-q", "-1"], "--block-q must be positive, got -1"),
        (["--repeats", "0"], "--repeats must be positive, got 0"),
        (["--softcap", "nan"], "--softcap must be positive, got nan"),
        (["--softcap", "inf"], "--softcap must be positive, got inf"),
        (["--naive-cap", "nan"], "--naive-cap must be a positive number of MiB, got nan"),
        (["--naive-cap=-1"], "--naive-cap must be a positive number of MiB, got -1.0"),
        (["--budget", "nan"], "--budget must be a positive number of seconds at most 86400"),
        (["--budget", "1e300"], "--budget must be a positive number of seconds at most 86400"),
        (["--budget", "0"], "--budget must be a positive number of seconds at most 86400"),
    ],
)
def test_cli_rejects_bad_arguments_with_exit_status_2(argv, message, capsys):
    from symattn.products.commands import bench

    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    assert bench.run(parser.parse_args(argv)) == 2
    assert message in capsys.readouterr().err


def test_dtype_flag_reaches_the_kernel():
    result = run_bench([16], d=4, dtype=np.float64, repeats=1, use_torch=False, matmul_n=64, memory=False)
    assert result["config"]["dtype"] == "float64"


@pytest.mark.parametrize("variant", ["gqa", "window", "softcap", "alibi"])
def test_every_variant_is_timed_against_its_torch_peer(variant):
    pytest.importorskip("torch", reason="torch is an optional peer")
    result = run_bench([64], d=8, batch=2, variant=variant, window=8, repeats=1, budget=0.5, memory=False,
                       matmul_n=64, threads=2)  # fmt: skip
    row = result["rows"][0]
    assert result["config"]["variant"] == variant and result["config"]["threads"] == 2
    assert row["tiled_fwd_s"] > 0 and row["torch_fwd_s"] > 0 and row["torch_bwd_s"] > 0
    assert row["ratios"]["tiled/torch_fwd"] > 0 and row["ratios"]["tiled/torch_bwd"] > 0
    assert result["config"]["torch_peer"] and result["config"]["workload"]
    assert variant.lower()[:3] in result["config"]["workload"].lower() or variant == "window"
    assert "torch peer" in format_table(result)


def test_the_window_flop_count_counts_only_the_band():
    from numeric.bench import visible_pairs

    # query i sees keys max(0, i - w) .. i: 1 + 2 + ... + (w + 1), then w + 1 per row
    assert visible_pairs(10, causal=True, window=3) == 1 + 2 + 3 + 4 * 7
    assert visible_pairs(10, causal=True, window=100) == visible_pairs(10, causal=True) == 55
    assert visible_pairs(10) == 100


def test_an_unknown_variant_is_rejected():
    with pytest.raises(ValueError, match=r"variant must be one of .* got 'sparse'"):
        run_bench([16], variant="sparse", use_torch=False, memory=False, matmul_n=16)
