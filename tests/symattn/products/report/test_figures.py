"""The figure registry: named figures, reproducible bytes, clear errors."""

import pytest

from symattn.products.report.figures import FIGURES, render, render_formats

REQUIRED = ("dot_product_spread", "softmax_saturation", "rope_logit_diagonals", "flops_crossover", "tiled_memory")


def test_the_required_figures_are_registered():
    assert set(REQUIRED) <= set(FIGURES)
    for f in FIGURES.values():
        assert f.title and f.caption and callable(f.draw)


def test_a_figure_is_reproducible_byte_for_byte_in_both_formats():
    a = render_formats("rope_logit_diagonals")
    b = render_formats("rope_logit_diagonals")
    assert a["svg"].data == b["svg"].data and a["pdf"].data == b["pdf"].data
    assert a["svg"].data.startswith(b"<svg ") and b"<?xml" not in a["svg"].data
    assert a["pdf"].data.startswith(b"%PDF") and b"CreationDate" not in a["pdf"].data
    assert "largest variation along a diagonal" in a["svg"].detail


def test_the_rope_figure_shows_constant_diagonals():
    detail = render_formats("rope_logit_diagonals", ("svg",))["svg"].detail
    spread = float(detail.split("largest variation along a diagonal: ")[1].split(" ")[0])
    assert spread < 1e-10


def test_the_flops_figure_marks_the_crossover_at_four_d():
    detail = render_formats("flops_crossover", ("svg",))["svg"].detail
    assert "= 4 d" in detail


@pytest.mark.parametrize(
    "name, fmt, error, match",
    [
        ("no_such_figure", "svg", KeyError, "no figure named 'no_such_figure'"),
        ("rope_logit_diagonals", "png", ValueError, "figure formats must be 'svg' or 'pdf'"),
    ],
)
def test_invalid_figure_requests_are_rejected(name, fmt, error, match):
    with pytest.raises(error, match=match):
        render(name, fmt)
