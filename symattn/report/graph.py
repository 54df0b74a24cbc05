"""The dependency graph of the results, drawn as a blueprint.

One node per theorem, an arrow from a result to every result whose derivation applies it
(``apply_theorem``, nested derivations included); node shape by kind, colour by verdict, nodes
grouped in one box per topic. As in leanblueprint and Verso's blueprint, every node links to the
theorem's section: in the HTML through an ``<a href>`` in the inline SVG, in the PDF through
``\\hyperref`` boxes laid over the picture.

Layout
------
The layout is our own and deterministic (:func:`layout`), not Graphviz's: the graph is sparse
(most results stand alone, the uses are short chains inside a topic), and ``dot`` puts all the
topic clusters of such a graph side by side, several pages wide. Here the topic boxes fill a grid
of :data:`COLUMNS` columns in the report's topic order; inside a box the nodes are stacked in
layers by dependency depth (a result below what it uses), at most :data:`PER_ROW` to a row, in
registration order. Edges are cubic curves from the bottom of the used result to the top of the
user. Only integer arithmetic on fixed sizes is involved, so the same results give the same bytes
on every machine, with no external program (the quickstart ``pip install . && symattn report``
needs nothing else).

Shapes: theorem, a rounded box; definition, a square box; heuristic, a hexagon; empirical
observation, a parallelogram (a legend is drawn beneath).
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from html import escape as _esc

__all__ = ["label_lines", "Graph", "Node", "Placed", "Layout", "dependency_graph", "layout", "to_svg", "to_pdf",
           "to_tex",
           "KIND_SHAPES", "VERDICT_COLOURS"]

#: topic boxes per row of the grid, and nodes per row inside a box
COLUMNS = 3
PER_ROW = 2
#: a label longer than this is split at the underscore nearest its middle, over two lines
SPLIT_AT = 18

# sizes in points (1/72 inch); the label font is monospace, CHAR wide per character
CHAR = 5.4
NODE_H = 26
LINE_H = 10
PAD_X, GAP_X, GAP_Y = 10, 10, 16
TITLE_H = 16
BOX_GAP = 14

KIND_SHAPES = {"theorem": "rounded box", "definition": "box", "heuristic": "hexagon", "empirical": "parallelogram"}

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
    width: int
    height: int
    nodes: dict = field(default_factory=dict)  # id -> Placed
    boxes: list = field(default_factory=list)  # [(topic title, x, y, w, h)]
    edges: list = field(default_factory=list)  # [(used, user, ((x0, y0), (x1, y1), (x2, y2), (x3, y3)))]


def dependency_graph(groups: list) -> Graph:
    """The graph of the report's entries, from :func:`~symattn.report.content.group_by_topic`
    output ``[(topic, title, [TheoremEntry])]``. Uses of theorems outside the report are left out."""
    from symattn.report.content import pdf_text

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


def label_lines(label: str) -> list:
    """The label on one line, or two (split after the underscore nearest the middle).

    >>> label_lines("softmax_add_const"), label_lines("attention_output_convex_combination")
    (['softmax_add_const'], ['attention_output_', 'convex_combination'])
    """
    if len(label) <= SPLIT_AT or "_" not in label:
        return [label]
    cuts = [k + 1 for k, ch in enumerate(label) if ch == "_"]
    k = min(cuts, key=lambda c: (abs(len(label) / 2 - c), c))
    return [label[:k], label[k:]]


def _width(label: str) -> int:
    return int(max(len(x) for x in label_lines(label)) * CHAR) + 2 * PAD_X


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


def layout(graph: Graph, columns: int = COLUMNS, per_row: int = PER_ROW) -> Layout:
    """Place the topic boxes in ``columns`` columns (each box, in topic order, goes to the column
    that is shortest so far: a masonry, so that one long topic does not stretch a whole row) and
    the nodes in layers inside them, at most ``per_row`` to a row (see the module notes)."""
    by_topic: dict = {}
    for n in graph.nodes:
        by_topic.setdefault(n.topic, []).append(n)
    col_w = max((_width(n.label) for n in graph.nodes), default=80)
    box_w = per_row * col_w + (per_row - 1) * GAP_X + 2 * PAD_X
    out = Layout(width=columns * box_w + (columns - 1) * BOX_GAP, height=0)
    tops = [0] * columns
    for topic, title in graph.topics:
        members = by_topic.get(topic, [])
        if not members:
            continue
        depth = _depths([n.id for n in members], graph.edges)
        rows: list = []
        for d in sorted(set(depth.values())):
            layer = [n for n in members if depth[n.id] == d]
            rows += [layer[i:i + per_row] for i in range(0, len(layer), per_row)]
        h = TITLE_H + PAD_X + len(rows) * NODE_H + (len(rows) - 1) * GAP_Y + PAD_X
        c = min(range(columns), key=lambda k: (tops[k], k))
        x_box, y_box = c * (box_w + BOX_GAP), tops[c]
        for r, row in enumerate(rows):
            y = y_box + TITLE_H + PAD_X + r * (NODE_H + GAP_Y)
            for k, n in enumerate(row):
                w = _width(n.label)
                x = x_box + PAD_X + k * (col_w + GAP_X) + (col_w - w) // 2
                out.nodes[n.id] = Placed(n, x, y, w, NODE_H)
        out.boxes.append((title, x_box, y_box, box_w, h))
        tops[c] = y_box + h + BOX_GAP
    out.height = max(max(tops) - BOX_GAP, 0)
    for a, b in graph.edges:
        pa, pb = out.nodes[a], out.nodes[b]
        x0, y0 = pa.x + pa.w // 2, pa.y + pa.h
        x3, y3 = pb.x + pb.w // 2, pb.y
        if y3 <= y0:  # the user sits above or beside the used result (another box): leave from the top
            y0 = pa.y
            y3 = pb.y + pb.h if pb.y + pb.h <= pa.y else pb.y
        bend = max(abs(y3 - y0) // 2, 12)
        s = 1 if y3 >= y0 else -1
        out.edges.append((a, b, ((x0, y0), (x0, y0 + s * bend), (x3, y3 - s * bend), (x3, y3))))
    return out


def _shape_points(p: Placed) -> list | None:
    """Polygon corners for the kinds drawn as polygons (None: a rectangle, rounded or not)."""
    x, y, w, h = p.x, p.y, p.w, p.h
    if p.node.kind == "heuristic":
        t = h // 2
        return [(x, y + t), (x + t, y), (x + w - t, y), (x + w, y + t), (x + w - t, y + h), (x + t, y + h)]
    if p.node.kind == "empirical":
        t = h // 2
        return [(x + t, y), (x + w, y), (x + w - t, y + h), (x, y + h)]
    return None


LEGEND_H = 30


def _legend_items() -> list:
    kinds = [("theorem", "theorem"), ("definition", "definition"), ("heuristic", "heuristic"),
             ("empirical", "empirical")]
    verdicts = [v for v in VERDICT_COLOURS if v is not None]
    return kinds, verdicts


# ---------------------------------------------------------------------------------------------- SVG
def to_svg(lay: Layout) -> str:
    """The layout as an inline SVG: every node a link to ``#thm-<id>`` with the title as tooltip."""
    W, H = lay.width + 2, lay.height + LEGEND_H + 2
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="depgraph" viewBox="-1 -1 {W} {H}" '
           f'width="{W}" height="{H}" role="img" aria-label="Dependency graph of the results">',
           '<defs><marker id="depgraph-arrow" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="7" '
           'markerHeight="7" orient="auto"><path d="M0,0 L8,4 L0,8 z" fill="#57606a"/></marker></defs>']
    for title, x, y, w, h in lay.boxes:
        out.append(f'<g class="topic"><rect x="{x}" y="{y}" width="{w}" height="{h}" rx="6" fill="#f6f8fa" '
                   f'stroke="#d0d7de"/><text x="{x + PAD_X}" y="{y + 12}" font-size="10" '
                   f'font-family="DejaVu Sans, Arial, sans-serif" fill="#57606a">{_esc(title)}</text></g>')
    for a, b, pts in lay.edges:
        (x0, y0), (x1, y1), (x2, y2), (x3, y3) = pts
        out.append(f'<path class="edge" d="M{x0},{y0} C{x1},{y1} {x2},{y2} {x3},{y3}" fill="none" stroke="#57606a" '
                   f'stroke-width="1" marker-end="url(#depgraph-arrow)"><title>{_esc(b)} uses {_esc(a)}</title></path>')
    for p in lay.nodes.values():
        out.append(_svg_node(p))
    out.append(_svg_legend(lay.height + 8))
    out.append("</svg>")
    return "\n".join(out)


def _svg_shape(p: Placed, fill: str, extra: str = "") -> str:
    pts = _shape_points(p)
    if pts is not None:
        return (f'<polygon points="{" ".join(f"{x},{y}" for x, y in pts)}" fill="{fill}" stroke="#1b1f24" '
                f'stroke-width="0.6"{extra}/>')
    rx = p.h // 2 if p.node.kind == "theorem" else 0
    return (f'<rect x="{p.x}" y="{p.y}" width="{p.w}" height="{p.h}" rx="{rx}" fill="{fill}" stroke="#1b1f24" '
            f'stroke-width="0.6"{extra}/>')


def _svg_node(p: Placed) -> str:
    fill = VERDICT_COLOURS.get(p.node.verdict, VERDICT_COLOURS[None])
    tip = f"{p.node.title} ({p.node.kind}, {p.node.verdict or 'not checked'})"
    lines = label_lines(p.node.label)
    y0 = p.y + p.h // 2 + 3 - (len(lines) - 1) * LINE_H // 2
    spans = "".join(f'<tspan x="{p.x + p.w // 2}" y="{y0 + k * LINE_H}">{_esc(t)}</tspan>' for k, t in enumerate(lines))
    return (f'<a href="#thm-{p.node.id}"><title>{_esc(tip)}</title>{_svg_shape(p, fill)}'
            f'<text text-anchor="middle" font-size="9" font-family="DejaVu Sans Mono, Menlo, monospace" '
            f'fill="#ffffff">{spans}</text></a>')


def _svg_legend(y: int) -> str:
    kinds, verdicts = _legend_items()
    out, x = ['<g class="legend" font-family="DejaVu Sans, Arial, sans-serif" font-size="9" fill="#1b1f24">'], 0
    for kind, label in kinds:
        p = Placed(Node("", "", "", kind, None, ""), x, y, 26, 12)
        out.append(_svg_shape(p, "#ffffff"))
        out.append(f'<text x="{x + 30}" y="{y + 9}">{label}</text>')
        x += 30 + int(len(label) * 5.5) + 12
    x += 10
    for v in verdicts:
        out.append(f'<rect x="{x}" y="{y}" width="12" height="12" fill="{VERDICT_COLOURS[v]}"/>'
                   f'<text x="{x + 16}" y="{y + 9}">{v}</text>')
        x += 16 + int(len(v) * 5.2) + 12
    out.append("</g>")
    return "".join(out)


# ---------------------------------------------------------------------------------------------- PDF
def to_pdf(lay: Layout) -> bytes:
    """The same drawing as a PDF (matplotlib, no dates in the file), without the links: those
    are laid over it in TeX by :func:`to_tex`."""
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.patches import FancyBboxPatch, PathPatch, Polygon, Rectangle
    from matplotlib.path import Path

    W, H = lay.width + 2, lay.height + LEGEND_H + 2
    with matplotlib.rc_context({"pdf.fonttype": 42, "font.family": "DejaVu Sans", "path.simplify": False}):
        fig = Figure(figsize=(W / 72, H / 72))
        FigureCanvasAgg(fig)
        ax = fig.add_axes((0, 0, 1, 1))
        ax.set_xlim(-1, W - 1)
        ax.set_ylim(H - 1, -1)
        ax.axis("off")
        for title, x, y, w, h in lay.boxes:
            ax.add_patch(FancyBboxPatch((x, y), w, h, boxstyle="round,pad=0,rounding_size=6", fc="#f6f8fa",
                                        ec="#d0d7de", lw=0.8))
            ax.text(x + PAD_X, y + 12, title, fontsize=10, color="#57606a", va="baseline")
        for _a, _b, pts in lay.edges:
            path = Path(pts, [Path.MOVETO, Path.CURVE4, Path.CURVE4, Path.CURVE4])
            ax.add_patch(PathPatch(path, fc="none", ec="#57606a", lw=0.7))
            (_, _), (_, _), (x2, y2), (x3, y3) = pts
            s = 1 if y3 >= y2 else -1
            ax.add_patch(Polygon([(x3, y3), (x3 - 3, y3 - 6 * s), (x3 + 3, y3 - 6 * s)], closed=True, fc="#57606a",
                                 ec="none"))

        def shape(p, fill):
            pts = _shape_points(p)
            if pts is not None:
                return Polygon(pts, closed=True, fc=fill, ec="#1b1f24", lw=0.5)
            if p.node.kind == "theorem":
                return FancyBboxPatch((p.x, p.y), p.w, p.h, boxstyle=f"round,pad=0,rounding_size={p.h / 2}",
                                      fc=fill, ec="#1b1f24", lw=0.5)
            return Rectangle((p.x, p.y), p.w, p.h, fc=fill, ec="#1b1f24", lw=0.5)

        for p in lay.nodes.values():
            ax.add_patch(shape(p, VERDICT_COLOURS.get(p.node.verdict, VERDICT_COLOURS[None])))
            lines = label_lines(p.node.label)
            y0 = p.y + p.h // 2 + 3 - (len(lines) - 1) * LINE_H // 2
            for k, t in enumerate(lines):
                ax.text(p.x + p.w / 2, y0 + k * LINE_H, t, fontsize=9, family="DejaVu Sans Mono", color="#ffffff",
                        ha="center", va="baseline")
        kinds, verdicts = _legend_items()
        x, y = 0, lay.height + 8
        for kind, label in kinds:
            ax.add_patch(shape(Placed(Node("", "", "", kind, None, ""), x, y, 26, 12), "#ffffff"))
            ax.text(x + 30, y + 9, label, fontsize=9, va="baseline")
            x += 30 + int(len(label) * 5.5) + 12
        x += 10
        for v in verdicts:
            ax.add_patch(Rectangle((x, y), 12, 12, fc=VERDICT_COLOURS[v], ec="none"))
            ax.text(x + 16, y + 9, v, fontsize=9, va="baseline")
            x += 16 + int(len(v) * 5.2) + 12
        buf = io.BytesIO()
        fig.savefig(buf, format="pdf", metadata={"CreationDate": None, "ModDate": None, "Producer": None})
    return buf.getvalue()


def to_tex(lay: Layout, pdf_name: str = "figures/dependencies.pdf") -> str:
    """A ``picture`` that shows the PDF drawing at the text width with a ``\\hyperref`` box over
    every node, so that the nodes link to their sections in the PDF as in the HTML."""
    W, H = lay.width + 2, lay.height + LEGEND_H + 2
    lines = [r"% the dependency graph (generated): the drawing, and a link over every node",
             # the unit: the drawing fills the line, unless it would then be taller than the page
             r"\begingroup\setlength{\unitlength}{\dimexpr\linewidth/%d\relax}%%" % W,
             r"\ifdim\dimexpr%d\unitlength\relax>\dimexpr\textheight-5\baselineskip\relax"
             r"\setlength{\unitlength}{\dimexpr(\textheight-5\baselineskip)/%d\relax}\fi%%" % (H, H),
             r"\typeout{symattn graph: linewidth \the\linewidth, textheight \the\textheight, unit \the\unitlength}%",
             r"\begin{picture}(%d,%d)" % (W, H),
             r"\put(0,0){\includegraphics[width=%d\unitlength]{%s}}" % (W, pdf_name)]
    for p in lay.nodes.values():
        # picture coordinates grow upwards; the layout's grow downwards
        lines.append(r"\put(%d,%d){\hyperref[thm:%s]{\makebox(%d,%d){}}}" % (p.x + 1, H - 1 - (p.y + p.h), p.node.id,
                                                                           p.w, p.h))
    lines += [r"\end{picture}\endgroup", ""]
    return "\n".join(lines)
