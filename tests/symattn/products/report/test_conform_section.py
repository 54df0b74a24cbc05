"""`symattn report --conform MODULE:FUNCTION` adds a conformance section to the report."""

from symattn.products.cli import main


def test_report_with_conform_adds_a_section_per_implementation(tmp_path, capsys):
    out = tmp_path / "r"
    code = main(["report", "-k", "^softmax_add_const$", "--out", str(out), "--format", "html,latex",
                 "--figures", "none", "--conform-examples", "8", "--conform", "numeric:attention",
                 "--conform", "tests.symattn.products.broken_attention:no_scaling"])
    assert code == 0
    html = (out / "index.html").read_text()
    assert "Conformance of numeric:attention" in html
    assert "Conformance of tests.symattn.products.broken_attention:no_scaling" in html
    assert "passes every property" in html and "fails: agrees_with_reference, default_scale" in html
    tex = (out / "tex" / "section-conformance-numeric-attention.tex").read_text()
    assert "scaled\\_\\allowbreak{}logit" in tex and "longtable" in tex


def test_report_with_a_bad_conform_target_is_a_usage_error(tmp_path, capsys):
    code = main(["report", "-k", "^softmax_add_const$", "--out", str(tmp_path / "r"), "--conform", "numeric:nope"])
    assert code == 2
    assert "no attribute" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


def test_report_with_too_few_conform_examples_is_a_usage_error(tmp_path, capsys):
    code = main(["report", "-k", "^softmax_add_const$", "--out", str(tmp_path / "r"), "--conform", "numeric:attention",
                 "--conform-examples", "0"])
    assert code == 2
    assert "--conform-examples must be at least 1, got 0" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()
