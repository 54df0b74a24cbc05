"""The dependency graph: one node per result, an edge per use, shapes by kind, colours by verdict,
nodes linked to their sections in both formats, a layout without overlaps, the same bytes every time."""

from __future__ import annotations

import re

import pytest

from symattn.report import graph as g
from symattn.report.content import group_by_topic, link_uses, theorem_entry
from symattn.theorem import load_all


@pytest.fixture(scope="module")
def library():
    entries = [theorem_entry(t, None) for t in load_all()]
    link_uses(entries)
    graph = g.dependency_graph(group_by_topic(entries))
    return entries, graph, g.layout(graph)


def test_one_node_per_result_and_one_edge_per_use(library):
    entries, graph, _ = library
    assert [n.id for n in graph.nodes] == [e.id for t, _, es in group_by_topic(entries) for e in es]
    assert sorted(graph.edges) == sorted({(u, e.id) for e in entries for u in e.uses})


def test_nodes_do_not_overlap_and_stay_inside_their_topic_box(library):
    _, graph, lay = library
    placed = list(lay.nodes.values())
    for k, a in enumerate(placed):
        for b in placed[k + 1:]:
            assert a.x + a.w <= b.x or b.x + b.w <= a.x or a.y + a.h <= b.y or b.y + b.h <= a.y, (a.node.id, b.node.id)
    boxes = {title: (x, y, w, h) for title, x, y, w, h in lay.boxes}
    titles = dict(graph.topics)
    for p in placed:
        x, y, w, h = boxes[titles[p.node.topic]]
        assert x <= p.x and p.x + p.w <= x + w and y <= p.y and p.y + p.h <= y + h
    assert all(0 <= p.x and p.x + p.w <= lay.width and p.y + p.h <= lay.height for p in placed)


def test_a_used_result_sits_above_its_users_within_a_topic(library):
    _, graph, lay = library
    topic = {n.id: n.topic for n in graph.nodes}
    for a, b in graph.edges:
        if topic[a] == topic[b]:
            assert lay.nodes[a].y < lay.nodes[b].y, (a, b)


def test_the_svg_links_every_node_and_draws_kinds_and_verdicts_apart(library):
    _, graph, lay = library
    svg = g.to_svg(lay)
    assert set(re.findall(r'<a href="#thm-([a-z0-9_]+)">', svg)) == {n.id for n in graph.nodes}
    assert svg.count('class="edge"') == len(graph.edges)
    kinds = {p.node.kind: g._svg_shape(p, "#fff") for p in lay.nodes.values()}
    assert len(set(kinds.values())) == len(kinds)  # every kind its own shape
    assert g.VERDICT_COLOURS[None] in svg  # unchecked nodes are grey


def test_the_pdf_figure_is_reproducible_and_links_every_node(library):
    _, graph, lay = library
    assert g.to_pdf(lay) == g.to_pdf(g.layout(graph))
    assert g.to_svg(lay) == g.to_svg(g.layout(graph))
    tex = g.to_tex(lay)
    assert set(re.findall(r"\\hyperref\[thm:([a-z0-9_]+)\]", tex)) == {n.id for n in graph.nodes}


def test_long_labels_split_at_an_underscore():
    assert g.label_lines("positional_encoding_breaks_equivariance") == ["positional_encoding_", "breaks_equivariance"]
    assert g.label_lines("short") == ["short"]
