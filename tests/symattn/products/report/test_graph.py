"""The dependency graphs: one figure per topic, an edge per use, shapes by kind, colours by verdict,
nodes linked to their sections in both formats, no edge under a node, labels at their natural size,
the same bytes every time."""

from __future__ import annotations

import re

import pytest

from symattn.engine.theorem import load_all
from symattn.products.report import graph as g
from symattn.products.report.content import group_by_topic, link_uses, theorem_entry


@pytest.fixture(scope="module")
def library():
    entries = [theorem_entry(t, None) for t in load_all()]
    link_uses(entries)
    graph = g.dependency_graph(group_by_topic(entries))
    return entries, graph, g.topic_layouts(graph)


def test_one_node_per_result_and_one_edge_per_use(library):
    entries, graph, _ = library
    assert [n.id for n in graph.nodes] == [e.id for t, _, es in group_by_topic(entries) for e in es]
    assert sorted(graph.edges) == sorted({(u, e.id) for e in entries for u in e.uses})


def test_every_use_is_drawn_once_in_the_figure_of_the_users_topic(library):
    _, graph, lays = library
    topic = {n.id: n.topic for n in graph.nodes}
    drawn = [(lay.topic, a, b) for lay in lays for a, b, _ in lay.edges]
    assert sorted(drawn) == sorted((topic[b], a, b) for a, b in graph.edges)
    for lay in lays:
        for i, p in lay.nodes.items():
            # a node of another topic is drawn as such (dashed), the topic's own with their kind
            assert (p.node.kind == "external") == (topic[i] != lay.topic)


def test_figures_fit_the_text_width_so_labels_keep_their_size(library):
    _, _, lays = library
    assert lays and all(0 < lay.width <= g.MAX_WIDTH for lay in lays)
    for lay in lays:
        for p in lay.nodes.values():
            assert 0 <= p.x and p.x + p.w <= lay.width and 0 <= p.y and p.y + p.h <= lay.height


def _crosses(seg, p) -> bool:
    """Whether the axis-parallel segment ``seg`` passes through the inside of node ``p``."""
    (x0, y0), (x1, y1) = seg
    if x0 == x1:
        return p.x < x0 < p.x + p.w and max(y0, y1) > p.y and min(y0, y1) < p.y + p.h
    return p.y < y0 < p.y + p.h and max(x0, x1) > p.x and min(x0, x1) < p.x + p.w


@pytest.mark.parametrize("max_width", [g.MAX_WIDTH, 200])
def test_no_node_overlaps_another_and_no_edge_passes_under_a_node(library, max_width):
    _, graph, _ = library
    for lay in g.topic_layouts(graph, max_width=max_width):
        placed = list(lay.nodes.values())
        for k, a in enumerate(placed):
            for b in placed[k + 1:]:
                assert a.x + a.w <= b.x or b.x + b.w <= a.x or a.y + a.h <= b.y or b.y + b.h <= a.y, (a.node.id,
                                                                                                    b.node.id)
        for a, b, pts in lay.edges:
            segs = list(zip(pts, pts[1:]))
            assert all(s[0][0] == s[1][0] or s[0][1] == s[1][1] for s in segs), "edges run along the grid"
            assert pts[0] == (lay.nodes[a].x + lay.nodes[a].w // 2, lay.nodes[a].y + lay.nodes[a].h)
            assert pts[-1] == (lay.nodes[b].x + lay.nodes[b].w // 2, lay.nodes[b].y)
            for seg in segs:
                for p in placed:
                    assert not _crosses(seg, p), (lay.topic, a, b, p.node.id)


def test_a_used_result_sits_above_its_users(library):
    _, _, lays = library
    for lay in lays:
        for a, b, _ in lay.edges:
            assert lay.nodes[a].y + lay.nodes[a].h < lay.nodes[b].y, (a, b)


def test_the_svg_links_every_node_and_draws_kinds_and_verdicts_apart(library):
    _, graph, lays = library
    for lay in lays:
        svg = g.to_svg(lay, prefix=f"p-{lay.topic}")
        assert set(re.findall(r'<a href="#thm-([a-z0-9_]+)">', svg)) == set(lay.nodes)
        assert svg.count('class="edge"') == len(lay.edges)
        assert set(re.findall(r'\sid="([^"]+)"', svg)) == {f"p-{lay.topic}-arrow"}
    shapes = {k: g._svg_shape(g.Placed(g.Node("", "", "", k, None, ""), 0, 0, 30, 12), "#fff") for k in g.KIND_SHAPES}
    assert len(set(shapes.values())) == len(shapes)  # every kind its own shape
    legend = g.legend_svg()
    assert all(v in legend for v in g.VERDICT_COLOURS.values()) and "not checked" in legend


def test_the_pdf_figures_are_reproducible_and_link_every_node(library):
    _, graph, lays = library
    again = g.topic_layouts(graph)
    for lay, other in zip(lays, again):
        assert g.to_pdf(lay) == g.to_pdf(other) and g.to_svg(lay) == g.to_svg(other)
        tex = g.to_tex(lay, f"figures/dependencies-{lay.topic}.pdf")
        assert set(re.findall(r"\\hyperref\[thm:([a-z0-9_]+)\]", tex)) == set(lay.nodes)
        assert r"\setlength{\unitlength}{1bp}" in tex  # natural size: 9 pt labels on paper
    assert g.legend_pdf() == g.legend_pdf()


@pytest.mark.parametrize("label, lines", [
    ("short", ["short"]),
    ("softmax_add_const", ["softmax_add_const"]),
    ("positional_encoding_breaks_equivariance", ["positional_", "encoding_breaks_", "equivariance"]),
    ("softmax_jacobian_trace_gap_sum_of_squares", ["softmax_jacobian_", "trace_gap_sum_of_", "squares"]),
    ("nounderscoresatallinthislonglabel", ["nounderscoresatallinthislonglabel"]),
])
def test_long_labels_split_at_underscores(label, lines):
    assert g.label_lines(label) == lines
    assert "".join(lines) == label
