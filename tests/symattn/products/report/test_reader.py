"""The report as a reader sees it: the PDF's own log, the PDF's text, the page in a browser.

Each property is checked on two reports: one of a user's file (written below, built through the
command line as a user would), and the library's own report (built once per session; it checks
every theorem, so it is marked ``slow``, and CI runs it).

* pdflatex, re-run on the report's ``symattn.tex``, logs no overfull box wider than 10 pt;
* the text of the PDF (``pdftotext``) holds none of SymPy's ASCII (``**``, ``sqrt(``,
  ``KroneckerDelta``) and none of the kernel's canonical names; neither does the HTML's visible text;
* headless Chromium, at a laptop's window width, finds no element wider than its container (a
  script added to a copy of the page compares each element with its parent's content box, and a
  scroll container's ``scrollWidth`` with its ``clientWidth``) and no two elements with one id;
* two builds give the same bytes.
"""

from __future__ import annotations

import collections
import html as htmllib
import json
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]
ROOT = Path(__file__).resolve().parents[4]

# a user's file: a sum split at a free index (the kernel's reasons name canonical bound variables),
# a long statement (it must break across lines), and a slip whose residual the report must show
USER_FILE = textwrap.dedent('''
    """A user's results (a test fixture of symattn's report)."""
    import sympy as sp

    from symattn import Derivation, Statement, Theorem, register
    from symattn.language.statement import Equation, IndexRange

    n = sp.Symbol("n", integer=True, positive=True)
    i = sp.Symbol("i", integer=True, positive=True)
    j = sp.Symbol("j", integer=True)
    a = sp.IndexedBase("a", positive=True)
    x = sp.symbols("x1:13", positive=True)

    def S(lo, hi):
        return sp.Sum(a[j], (j, lo, hi))

    register(Theorem(
        "weights_around_one_index", "The weights before, at and after one index sum to one",
        Statement(S(1, i - 1) + a[i] + S(i + 1, n), sp.S.One),
        source="my notes",
        hypotheses=(IndexRange("row", index=i, lower=1, upper=n),
                    Equation("simplex_j", lhs=S(1, n), rhs=sp.S.One)),
        plain="Split the sum $\\\\sum_j a_j = 1$ at $i$.",
        derivation=lambda: Derivation(S(1, i - 1) + a[i] + S(i + 1, n))
        .eq(S(1, i) + S(i + 1, n), "range_join", at=i - 1)
        .eq(S(1, n), "range_join", at=i)
        .eq(sp.S.One, "substitute", using="simplex_j"),
    ))

    long_sum = sum((k + 1) * sp.sqrt(v) * sp.log(1 + v) for k, v in enumerate(x))
    register(Theorem(
        "a_long_sum_expands", "A long sum, expanded",
        Statement(sp.expand(long_sum * (1 + x[0])), sp.expand(long_sum) * (1 + x[0]) ),
        source="my notes",
        derivation=lambda: Derivation(sp.expand(long_sum * (1 + x[0])))
        .eq(sp.expand(long_sum) * (1 + x[0]), "algebra"),
    ))

    register(Theorem(
        "a_slip_in_a_square", "A slip: the square of a sum",
        Statement((x[0] + x[1]) ** 2, x[0] ** 2 + x[1] ** 2),
        source="my notes",
        derivation=lambda: Derivation((x[0] + x[1]) ** 2).eq(x[0] ** 2 + x[1] ** 2, "algebra"),
    ))
''')


def _build_cli(source: Path, out: Path, *extra: str) -> None:
    proc = subprocess.run([sys.executable, "-m", "symattn", "report", str(source), "--out", str(out), "-j", "1",
                           *extra], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert (out / "index.html").is_file() and (out / "symattn.pdf").is_file(), proc.stdout[-3000:] + proc.stderr[-3000:]


@pytest.fixture(scope="module")
def user_report(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("user")
    (d / "my_results.py").write_text(USER_FILE, encoding="utf-8")
    _build_cli(d / "my_results.py", d / "report")
    return d / "report"


@pytest.fixture(scope="session")
def library_report(library_build) -> Path:
    return library_build[0]  # the session's one build of the library report (conftest.py)


REPORTS = ["user_report", pytest.param("library_report", marks=pytest.mark.slow)]


@pytest.fixture(params=REPORTS)
def report(request) -> Path:
    return request.getfixturevalue(request.param)


# ---------------------------------------------------------------------------------------------- PDF
_OVERFULL = re.compile(r"^Overfull \\[hv]box \(([\d.]+)pt too (?:wide|high)\) (.*)$", re.M)


def overfull_boxes(log: str) -> list[tuple[float, str]]:
    """``(points, where)`` of every overfull box a pdflatex log reports."""
    return [(float(m.group(1)), m.group(2)) for m in _OVERFULL.finditer(log)]


def test_the_overfull_box_parser_reads_a_real_log_line():
    log = "x\nOverfull \\hbox (47.29578pt too wide) in paragraph at lines 24--27\ny\n" \
          "Overfull \\vbox (3.0pt too high) has occurred while \\output is active\n"
    assert overfull_boxes(log) == [(47.29578, "in paragraph at lines 24--27"),
                                   (3.0, "has occurred while \\output is active")]


def _latex_log(report: Path, tmp_path: Path) -> str:
    work = tmp_path / "tex"
    shutil.copytree(report, work)
    proc = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "symattn.tex"], cwd=work,
                          capture_output=True, timeout=600, stdin=subprocess.DEVNULL)
    log = (work / "symattn.log").read_text(errors="replace")
    assert proc.returncode == 0, log[-3000:]
    return log


def test_no_line_of_the_pdf_runs_into_the_margin(report, tmp_path):
    assert shutil.which("pdflatex"), "pdflatex is required (apt-get install texlive-latex-recommended)"
    wide = [(pt, where) for pt, where in overfull_boxes(_latex_log(report, tmp_path)) if pt > 10]
    assert wide == [], f"{len(wide)} overfull boxes over 10 pt, e.g. {wide[:5]}"


#: SymPy's ASCII notation, which must never reach a reader
ASCII = [("**", re.compile(r"\*\*")), ("sqrt(", re.compile(r"sqrt\(")),
         ("KroneckerDelta", re.compile("KroneckerDelta"))]


def _pdf_text(report: Path) -> str:
    assert shutil.which("pdftotext"), "pdftotext is required (apt-get install poppler-utils)"
    return subprocess.run(["pdftotext", str(report / "symattn.pdf"), "-"], capture_output=True, text=True,
                          check=True).stdout


def test_the_pdf_text_has_no_ascii_maths(report):
    text = _pdf_text(report)
    for name, rx in ASCII:
        hits = [line for line in text.splitlines() if rx.search(line)]
        assert hits == [], f"{name!r} in {len(hits)} lines of the PDF, e.g. {hits[:3]}"
    # the kernel's canonical bound variables (``_k0``): pdftotext reads a typewriter underscore as a
    # space, so the TeX sources are read instead, where the name is exact, escaped or not
    for f in sorted((report / "tex").glob("*.tex")):
        src = f.read_text(encoding="utf-8")
        assert not re.search(r"(?<![A-Za-z0-9])(?:\\_|_)(?:\\allowbreak\{\})?k\d+(?![A-Za-z0-9])", src), f.name


# ---------------------------------------------------------------------------------------------- HTML
_MEASURE = """
<script>
(function () {
  function box(el) {
    var r = el.getBoundingClientRect(), cs = getComputedStyle(el);
    return {left: r.left + parseFloat(cs.borderLeftWidth) + parseFloat(cs.paddingLeft),
            right: r.right - parseFloat(cs.borderRightWidth) - parseFloat(cs.paddingRight)};
  }
  var bad = [], all = document.querySelectorAll("body *");
  for (var k = 0; k < all.length; k++) {
    var el = all[k];
    if (el.closest("math *, svg *, script, style, annotation")) continue;
    var cs = getComputedStyle(el);
    if (cs.display === "none" || cs.position === "absolute" || cs.position === "fixed") continue;
    var r = el.getBoundingClientRect();
    if (r.width === 0) continue;
    var what = el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
               (typeof el.className === "string" && el.className ? "." + el.className : "");
    if (el.scrollWidth > el.clientWidth + 1 && cs.overflowX !== "visible" && el.clientWidth > 0)
      bad.push(what + " scrolls: " + el.scrollWidth + " > " + el.clientWidth);
    var p = el.parentElement;
    if (!p || p === document.body.parentElement) continue;
    var pb = box(p);
    if (getComputedStyle(p).display === "inline") continue;
    if (r.right > pb.right + 1 || r.left < pb.left - 1)
      bad.push(what + " sticks out of " + p.tagName.toLowerCase() + ": " + Math.round(r.left) + ".." +
               Math.round(r.right) + " vs " + Math.round(pb.left) + ".." + Math.round(pb.right) +
               " (" + (el.textContent || "").slice(0, 60) + ")");
  }
  var out = document.createElement("pre");
  out.id = "symattn-overflow-result";
  out.textContent = JSON.stringify(bad);
  document.body.appendChild(out);
})();
</script>
"""


def _chromium_dom(page: Path, tmp_path: Path, width: int) -> str:
    assert CHROMIUM, "chromium is required (apt-get install chromium)"
    proc = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", f"--window-size={width},900",
                           "--virtual-time-budget=5000", "--dump-dom", page.resolve().as_uri()],
                          capture_output=True, timeout=300, stdin=subprocess.DEVNULL)
    dom = proc.stdout.decode("utf-8", errors="replace")
    assert proc.returncode == 0 and "</html>" in dom, proc.stderr[-2000:]
    return dom


@pytest.fixture(scope="module", params=REPORTS)
def measured(request, tmp_path_factory) -> tuple[Path, str]:
    """The report and the DOM of a test copy of its page, measured in Chromium at 1100 px (once
    per report)."""
    out = request.getfixturevalue(request.param)
    tmp_path = tmp_path_factory.mktemp("measured")
    copy = tmp_path / "page"
    shutil.copytree(out, copy)
    page = copy / "index.html"
    page.write_text(page.read_text(encoding="utf-8").replace("</body>", _MEASURE + "</body>"), encoding="utf-8")
    return out, _chromium_dom(page, tmp_path, 1100)


def test_no_element_of_the_page_is_wider_than_its_container(measured):
    _, dom = measured
    m = re.search(r'<pre id="symattn-overflow-result">(.*?)</pre>', dom, re.S)
    assert m, "the measuring script did not run"
    bad = json.loads(htmllib.unescape(m.group(1)))
    assert bad == [], f"{len(bad)} elements overflow, e.g. {bad[:8]}"


def test_no_two_elements_of_the_page_share_an_id(measured):
    _, dom = measured
    ids = collections.Counter(re.findall(r'\sid="([^"]+)"', dom))
    assert {k: v for k, v in ids.items() if v > 1} == {}


def _visible_text(dom: str) -> str:
    dom = re.sub(r"<math\b.*?</math>", " ", dom, flags=re.S)
    dom = re.sub(r"<(style|script|annotation|svg|title)\b.*?</\1>", " ", dom, flags=re.S)
    return htmllib.unescape(re.sub(r"<[^>]+>", " ", dom))


def test_the_page_text_has_no_ascii_maths(measured):
    _, dom = measured
    text = _visible_text(dom)
    for name, rx in ASCII:
        hits = [line.strip() for line in text.splitlines() if rx.search(line)]
        assert hits == [], f"{name!r} in {len(hits)} lines of the page, e.g. {hits[:3]}"
    hits = re.findall(r".{0,40}(?<![A-Za-z0-9])_k\d+(?![A-Za-z0-9]).{0,40}", text)
    assert hits == [], hits[:3]


# ---------------------------------------------------------------------------------------------- content
def test_the_users_report_shows_the_residual_and_the_users_names(user_report):
    page = (user_report / "index.html").read_text(encoding="utf-8")
    slip = page[page.index('id="thm-a_slip_in_a_square"'):]
    slip = slip[:slip.index("</section>")]
    assert 'class="residual"' in slip and "should be 0" in slip
    tex = (user_report / "tex" / "a_slip_in_a_square.tex").read_text(encoding="utf-8")
    assert "residual:" in tex and "2 x_{1} x_{2}" in tex  # (x1 + x2)^2 - (x1^2 + x2^2), typeset
    assert 'id="thm-weights_around_one_index-step-1"' in page
    # the long sum is broken into lines in both formats, not shrunk
    long = page[page.index('id="thm-a_long_sum_expands"'):]
    assert 'class="lines"' in long[:long.index("</section>")]
    assert r"\begin{multline*}" in (user_report / "tex" / "a_long_sum_expands.tex").read_text(encoding="utf-8")


def test_two_builds_of_a_users_report_give_the_same_bytes(user_report, tmp_path):
    again = tmp_path / "again"
    _build_cli(user_report.parent / "my_results.py", again)
    files = sorted(p.relative_to(user_report) for p in user_report.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(again) for p in again.rglob("*") if p.is_file())
    for f in files:
        assert (user_report / f).read_bytes() == (again / f).read_bytes(), f


def _figures():
    from symattn.products.report.figures import FIGURES

    return sorted(FIGURES)


@pytest.mark.parametrize("name", _figures())
def test_every_figure_is_the_same_every_time(name):
    # tiled_memory once plotted a measurement (tracemalloc peaks), which moved from run to run
    from symattn.products.report.figures import render_formats

    a, b = render_formats(name), render_formats(name)
    assert a["svg"].data == b["svg"].data and a["pdf"].data == b["pdf"].data
