"""The dependency graph of the results, drawn as a blueprint: one figure per topic.

One node per theorem, an arrow from a result to every result whose derivation applies it
(``apply_theorem``, nested derivations included); node shape by kind, colour by verdict. As in
leanblueprint and Verso's blueprint, every node links to the theorem's section: in the HTML through
an ``<a href>`` in the inline SVG, in the PDF through ``\\hyperref`` boxes laid over the picture.

Layout
------
The layout is our own and deterministic (:func:`topic_layouts`), not Graphviz's, and it is drawn
at its natural size, so that the labels are 9 pt on paper as on screen: one figure per topic, no
wider than the text (:data:`MAX_WIDTH`). A result a topic uses from another topic appears in that
topic's figure as a white, dashed node (a link to it). The nodes sit on a grid of :data:`MAX_WIDTH`
wide rows, in layers by dependency depth (a result below what it uses), in registration order;
results that neither use nor are used by another are not drawn (the caption says how many). Edges run only in the
empty space: down from the used result into the gap below its row, along the gap to the vertical
gutter beside the user's column, down the gutter to the gap above the user's row, along it and
down into the user. No edge passes under a node (a test checks every segment against every box).
Only integer arithmetic on fixed sizes is involved, so the same results give the same bytes on
every machine, with no external program.

Shapes: theorem, a rounded box; definition, a square box; heuristic, a hexagon; empirical
observation, a parallelogram; a result of another topic, a dashed white box. The legend is a
figure of its own (:func:`legend_svg`).
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from html import escape as _esc

__all__ = ["label_lines", "Graph", "Node", "Placed", "Layout", "dependency_graph", "topic_layouts", "to_svg",
           "to_pdf", "to_tex", "legend_svg", "legend_pdf", "KIND_SHAPES", "VERDICT_COLOURS", "MAX_WIDTH"]

#: the widest figure, in points: the text width of the PDF (A4, 2.2 cm margins) less a little
MAX_WIDTH = 460
#: a label longer than this is split at underscores, over as many lines as needed
SPLIT_AT = 19

# sizes in points (1/72 inch); the label font is monospace, CHAR wide per character at 9 pt
CHAR = 5.5
LINE_H = 10
NODE_PAD = 6
PAD_X = 6
GUTTER = 18  # between columns: where edges run down
GAP_Y = 22  # between rows: where edges run across
LANE = 3  # spacing of parallel edges in a gap or a gutter

KIND_SHAPES = {"theorem": "rounded box", "definition": "box", "heuristic": "hexagon", "empirical": "parallelogram",
               "external": "dashed box"}

#: fill colours by verdict (the badges' colours)
VERDICT_COLOURS = {
    "proved": "#1a7f37",
    "proved-for-instances": "#2f81c1",
    "checked-probabilistically": "#6f42c1",
    "numerically-consistent": "#9a6700",
    "undecided": "#6e7781",
    "refuted": "#cf222e",
    None: "#8c959f",
}


@dataclass(frozen=True)
class Node:
    id: str
    label: str
    title: str  # plain text, for tooltips
    kind: str
    verdict: str | None
    topic: str


@dataclass
class Graph:
    nodes: list  # [Node], report order
    edges: list  # [(used, user)]
    topics: list  # [(topic, plain title)]


@dataclass(frozen=True)
class Placed:
    node: Node
    x: int  # left
    y: int  # top (y grows downwards)
    w: int
    h: int


@dataclass
class Layout:
    """One topic's figure: nodes placed, edges as polylines (points, y grows downwards)."""

    topic: str
    title: str
    width: int
    height: int
    nodes: dict = field(default_factory=dict)  # id -> Placed
    edges: list = field(default_factory=list)  # [(used, user, [(x, y), ...])]


def dependency_graph(groups: list) -> Graph:
    """The graph of the report's entries, from :func:`~symattn.products.report.content.group_by_topic`
    output ``[(topic, title, [TheoremEntry])]``. Uses of theorems outside the report are left out."""
    from symattn.products.report.content import pdf_text

    nodes, topics = [], []
    for topic, title, entries in groups:
        topics.append((topic, pdf_text(title)))
        for e in entries:
            nodes.append(Node(e.id, e.id, pdf_text(e.title), e.kind, e.verdict, topic))
    ids = {n.id for n in nodes}
    edges = []
    for _topic, _title, entries in groups:
        for e in entries:
            edges += [(u, e.id) for u in e.uses if u in ids and u != e.id and (u, e.id) not in edges]
    return Graph(nodes, edges, topics)


def label_lines(label: str, limit: int = SPLIT_AT) -> list:
    """The label on one line, or several, each broken after an underscore and at most ``limit``
    characters where the underscores allow.

    >>> label_lines("softmax_add_const"), label_lines("attention_output_convex_combination")
    (['softmax_add_const'], ['attention_output_', 'convex_combination'])
    """
    if len(label) <= limit or "_" not in label:
        return [label]
    words = [w + "_" for w in label.split("_")]
    words[-1] = words[-1][:-1]
    lines, cur = [], ""
    for w in words:
        if cur and len(cur) + len(w) > limit:
            lines.append(cur)
            cur = w
        else:
            cur += w
    lines.append(cur)
    return lines


def _size(label: str) -> tuple[int, int]:
    lines = label_lines(label)
    return int(max(len(x) for x in lines) * CHAR) + 2 * NODE_PAD, len(lines) * LINE_H + 2 * NODE_PAD


def _depths(ids: list, edges: list) -> dict:
    """Longest chain of uses below each node, counting only edges inside ``ids`` (acyclic:
    the kernel rejects circular uses; a cycle would only stop the count)."""
    inside = set(ids)
    uses = {i: [a for a, b in edges if b == i and a in inside] for i in ids}
    depth: dict = {}

    def visit(i, seen=()):
        if i in depth:
            return depth[i]
        if i in seen:
            return 0
        depth[i] = 1 + max((visit(a, seen + (i,)) for a in uses[i]), default=-1)
        return depth[i]

    for i in ids:
        visit(i)
    return depth


def topic_layouts(graph: Graph, max_width: int = MAX_WIDTH) -> list:
    """One :class:`Layout` per topic that has a use in it (see the module notes); topics whose
    results neither use nor are used by another are left out, and so are such results."""
    by_id = {n.id: n for n in graph.nodes}
    out = []
    for topic, title in graph.topics:
        members = [n for n in graph.nodes if n.topic == topic]
        inside = {n.id for n in members}
        edges = [(a, b) for a, b in graph.edges if b in inside]
        if not edges:
            continue
        external = []
        for a, _b in edges:
            if a not in inside and a not in [n.id for n in external]:
                u = by_id[a]
                external.append(Node(u.id, u.id, u.title, "external", u.verdict, u.topic))
        out.append(_layout_one(topic, title, external + members, edges, max_width))
    return out


def _layout_one(topic: str, title: str, nodes: list, edges: list, max_width: int) -> Layout:
    linked = {x for e in edges for x in e}
    nodes = [n for n in nodes if n.id in linked]
    ids = [n.id for n in nodes]
    depth = _depths(ids, edges)
    col_w = max(_size(n.label)[0] for n in nodes)
    cols = max(1, (max_width - PAD_X) // (col_w + GUTTER))
    # rows: the layers, each wrapped at `cols`; column c has its gutter (where edges run down) on its left
    rows: list = []
    for d in sorted(set(depth.values())):
        layer = [n for n in nodes if depth[n.id] == d]
        rows += [layer[i:i + cols] for i in range(0, len(layer), cols)]
    used_cols = max(len(r) for r in rows)
    width = used_cols * (col_w + GUTTER) + PAD_X
    lay = Layout(topic, title, width, 0)
    row_of, col_of, row_top, row_h = {}, {}, [], []
    y = PAD_X
    for r, row in enumerate(rows):
        h = max(_size(n.label)[1] for n in row)
        row_top.append(y)
        row_h.append(h)
        for c, n in enumerate(row):
            w, nh = _size(n.label)
            x = GUTTER + c * (col_w + GUTTER) + (col_w - w) // 2
            lay.nodes[n.id] = Placed(n, x, y + (h - nh) // 2, w, nh)
            row_of[n.id], col_of[n.id] = r, c
        y += h + GAP_Y
    lay.height = y - GAP_Y + PAD_X
    # lanes: each edge its own offset in every gap and gutter it uses
    gap_lanes: dict = {}
    gutter_lanes: dict = {}

    def lane(table, key, span):
        k = table.get(key, 0)
        table[key] = k + 1
        return (k % max(1, span // LANE)) * LANE

    for a, b in edges:
        pa, pb = lay.nodes[a], lay.nodes[b]
        ra, rb = row_of[a], row_of[b]
        xa, xb = pa.x + pa.w // 2, pb.x + pb.w // 2
        ya = row_top[ra] + row_h[ra] + 5 + lane(gap_lanes, ra, GAP_Y - 10)
        if rb == ra + 1:
            pts = [(xa, pa.y + pa.h), (xa, ya), (xb, ya), (xb, pb.y)]
        else:  # across the gap below the used result, down the gutter left of the user's column
            gx = col_of[b] * (col_w + GUTTER) + 5 + lane(gutter_lanes, col_of[b], GUTTER - 10)
            yb = row_top[rb] - GAP_Y + 5 + lane(gap_lanes, rb - 1, GAP_Y - 10)
            pts = [(xa, pa.y + pa.h), (xa, ya), (gx, ya), (gx, yb), (xb, yb), (xb, pb.y)]
        lay.edges.append((a, b, _simplify(pts)))
    return lay


def _simplify(pts: list) -> list:
    out = []
    for p in pts:
        if out and p == out[-1]:
            continue
        out.append(p)
    return out


def _shape_points(p: Placed) -> list | None:
    """Polygon corners for the kinds drawn as polygons (None: a rectangle, rounded or not)."""
    x, y, w, h = p.x, p.y, p.w, p.h
    t = min(h // 2, 12)
    if p.node.kind == "heuristic":
        return [(x, y + h // 2), (x + t, y), (x + w - t, y), (x + w, y + h // 2), (x + w - t, y + h), (x + t, y + h)]
    if p.node.kind == "empirical":
        return [(x + t, y), (x + w, y), (x + w - t, y + h), (x, y + h)]
    return None


def _fill(p: Placed) -> str:
    return "#ffffff" if p.node.kind == "external" else VERDICT_COLOURS.get(p.node.verdict, VERDICT_COLOURS[None])


def _ink(p: Placed) -> str:
    return "#1b1f24" if p.node.kind == "external" else "#ffffff"


# ---------------------------------------------------------------------------------------------- SVG
def to_svg(lay: Layout, prefix: str = "") -> str:
    """One topic's figure as an inline SVG: every node a link to ``#thm-<id>`` with the title as
    tooltip; the arrowhead's id starts with ``prefix`` (unique in the page)."""
    W, H = lay.width, lay.height
    marker = f"{prefix or 'depgraph-' + lay.topic}-arrow"
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="depgraph" viewBox="0 0 {W} {H}" '
           f'width="{W}" height="{H}" role="img" aria-label="{_esc(lay.title)}: how the results depend on each other">',
           f'<defs><marker id="{marker}" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="7" '
           'markerHeight="7" orient="auto"><path d="M0,0 L8,4 L0,8 z" fill="#57606a"/></marker></defs>']
    for a, b, pts in lay.edges:
        d = "M" + " L".join(f"{x},{y}" for x, y in pts)
        out.append(f'<path class="edge" d="{d}" fill="none" stroke="#57606a" stroke-width="1" '
                   f'marker-end="url(#{marker})"><title>{_esc(b)} uses {_esc(a)}</title></path>')
    for p in lay.nodes.values():
        out.append(_svg_node(p))
    out.append("</svg>")
    return "\n".join(out)


def _svg_shape(p: Placed, fill: str, extra: str = "") -> str:
    pts = _shape_points(p)
    if pts is not None:
        return (f'<polygon points="{" ".join(f"{x},{y}" for x, y in pts)}" fill="{fill}" stroke="#1b1f24" '
                f'stroke-width="0.6"{extra}/>')
    rx = min(p.h // 2, 12) if p.node.kind == "theorem" else 0
    dash = ' stroke-dasharray="3 2"' if p.node.kind == "external" else ""
    return (f'<rect x="{p.x}" y="{p.y}" width="{p.w}" height="{p.h}" rx="{rx}" fill="{fill}" stroke="#1b1f24" '
            f'stroke-width="0.6"{dash}{extra}/>')


def _label_y(p: Placed) -> int:
    lines = label_lines(p.node.label)
    return p.y + (p.h - len(lines) * LINE_H) // 2 + LINE_H - 2


def _svg_node(p: Placed) -> str:
    where = f", in {p.node.topic}" if p.node.kind == "external" else ""
    tip = f"{p.node.title} ({p.node.kind}, {p.node.verdict or 'not checked'}{where})"
    lines = label_lines(p.node.label)
    y0 = _label_y(p)
    spans = "".join(f'<tspan x="{p.x + p.w // 2}" y="{y0 + k * LINE_H}">{_esc(t)}</tspan>' for k, t in enumerate(lines))
    return (f'<a href="#thm-{p.node.id}"><title>{_esc(tip)}</title>{_svg_shape(p, _fill(p))}'
            f'<text text-anchor="middle" font-size="9" font-family="DejaVu Sans Mono, Menlo, monospace" '
            f'fill="{_ink(p)}">{spans}</text></a>')


def _legend_rows() -> list:
    """The legend as rows of (kind or None, colour or None, label, width)."""
    kinds = [(k, None, k if k != "external" else "result of another topic") for k in KIND_SHAPES]
    verdicts = [(None, VERDICT_COLOURS[v], v) for v in VERDICT_COLOURS if v is not None]
    verdicts.append((None, VERDICT_COLOURS[None], "not checked"))
    rows, row, x = [], [], 0
    for item in kinds + [None] + verdicts:
        if item is None:
            rows.append(row)
            row, x = [], 0
            continue
        w = (30 if item[0] else 16) + int(len(item[2]) * 5.2) + 12
        if x + w > MAX_WIDTH:
            rows.append(row)
            row, x = [], 0
        row.append((*item, x))
        x += w
    rows.append(row)
    return rows


LEGEND_ROW = 18


def legend_svg() -> str:
    """Shapes (kinds) and colours (verdicts), as a small SVG of its own (never cut off)."""
    rows = _legend_rows()
    H = len(rows) * LEGEND_ROW
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="depgraph-legend" viewBox="0 0 {MAX_WIDTH} {H}" '
           f'width="{MAX_WIDTH}" height="{H}" role="img" aria-label="Legend of the dependency graphs">',
           '<g font-family="DejaVu Sans, Arial, sans-serif" font-size="9" fill="#1b1f24">']
    for r, row in enumerate(rows):
        y = r * LEGEND_ROW + 3
        for kind, colour, label, x in row:
            if kind:
                out.append(_svg_shape(Placed(Node("", "", "", kind, None, ""), x, y, 26, 12), "#ffffff"))
                out.append(f'<text x="{x + 30}" y="{y + 9}">{_esc(label)}</text>')
            else:
                out.append(f'<rect x="{x}" y="{y}" width="12" height="12" fill="{colour}"/>'
                           f'<text x="{x + 16}" y="{y + 9}">{_esc(label)}</text>')
    out += ["</g>", "</svg>"]
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------- PDF
def _pdf(width: int, height: int, draw) -> bytes:
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    with matplotlib.rc_context({"pdf.fonttype": 42, "font.family": "DejaVu Sans", "path.simplify": False}):
        fig = Figure(figsize=(width / 72, height / 72))
        FigureCanvasAgg(fig)
        ax = fig.add_axes((0, 0, 1, 1))
        ax.set_xlim(0, width)
        ax.set_ylim(height, 0)
        ax.axis("off")
        draw(ax)
        buf = io.BytesIO()
        fig.savefig(buf, format="pdf", metadata={"CreationDate": None, "ModDate": None, "Producer": None})
    return buf.getvalue()


def _mpl_shape(p: Placed, fill: str):
    from matplotlib.patches import FancyBboxPatch, Polygon, Rectangle

    pts = _shape_points(p)
    if pts is not None:
        return Polygon(pts, closed=True, fc=fill, ec="#1b1f24", lw=0.5)
    if p.node.kind == "theorem":
        return FancyBboxPatch((p.x, p.y), p.w, p.h, boxstyle=f"round,pad=0,rounding_size={min(p.h / 2, 12)}",
                              fc=fill, ec="#1b1f24", lw=0.5)
    return Rectangle((p.x, p.y), p.w, p.h, fc=fill, ec="#1b1f24", lw=0.5,
                     linestyle=(0, (3, 2)) if p.node.kind == "external" else "solid")


def to_pdf(lay: Layout) -> bytes:
    """The same drawing as a PDF (matplotlib, no dates in the file), without the links: those
    are laid over it in TeX by :func:`to_tex`."""
    from matplotlib.patches import Polygon

    def draw(ax):
        for _a, _b, pts in lay.edges:
            xs, ys = zip(*pts)
            ax.plot(xs, ys, color="#57606a", lw=0.7, solid_joinstyle="miter")
            (_x2, y2), (x3, y3) = pts[-2], pts[-1]
            s = 1 if y3 >= y2 else -1
            ax.add_patch(Polygon([(x3, y3), (x3 - 3, y3 - 6 * s), (x3 + 3, y3 - 6 * s)], closed=True, fc="#57606a",
                                 ec="none"))
        for p in lay.nodes.values():
            ax.add_patch(_mpl_shape(p, _fill(p)))
            y0 = _label_y(p)
            for k, t in enumerate(label_lines(p.node.label)):
                ax.text(p.x + p.w / 2, y0 + k * LINE_H, t, fontsize=9, family="DejaVu Sans Mono", color=_ink(p),
                        ha="center", va="baseline")

    return _pdf(lay.width, lay.height, draw)


def legend_pdf() -> bytes:
    """The legend (:func:`legend_svg`) as a PDF."""
    from matplotlib.patches import Rectangle

    rows = _legend_rows()

    def draw(ax):
        for r, row in enumerate(rows):
            y = r * LEGEND_ROW + 3
            for kind, colour, label, x in row:
                if kind:
                    ax.add_patch(_mpl_shape(Placed(Node("", "", "", kind, None, ""), x, y, 26, 12), "#ffffff"))
                    ax.text(x + 30, y + 9, label, fontsize=9, va="baseline")
                else:
                    ax.add_patch(Rectangle((x, y), 12, 12, fc=colour, ec="none"))
                    ax.text(x + 16, y + 9, label, fontsize=9, va="baseline")

    return _pdf(MAX_WIDTH, len(rows) * LEGEND_ROW, draw)


def to_tex(lay: Layout, pdf_name: str) -> str:
    """A ``picture`` that shows the PDF drawing at its natural size (labels 9 pt; the figure is at
    most :data:`MAX_WIDTH` points wide, narrower than the text) with a ``\\hyperref`` box over
    every node, so that the nodes link to their sections in the PDF as in the HTML."""
    W, H = lay.width, lay.height
    lines = [r"% a dependency graph (generated): the drawing at its natural size, and a link over every node",
             r"\begingroup\setlength{\unitlength}{1bp}%",
             r"\begin{picture}(%d,%d)" % (W, H),
             r"\put(0,0){\includegraphics[width=%d\unitlength]{%s}}" % (W, pdf_name)]
    for p in lay.nodes.values():
        # picture coordinates grow upwards; the layout's grow downwards
        lines.append(r"\put(%d,%d){\hyperref[thm:%s]{\makebox(%d,%d){}}}" % (p.x, H - (p.y + p.h), p.node.id,
                                                                            p.w, p.h))
    lines += [r"\end{picture}\endgroup", ""]
    return "\n".join(lines)
