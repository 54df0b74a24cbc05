"""Reports: the theorems, their derivations and verdicts as offline HTML and as LaTeX/PDF.

* :mod:`symattn.products.report.build` -- the pipeline behind ``symattn report`` (:func:`build_report`);
* :mod:`symattn.products.report.content` -- what a report says, independent of the format;
* :mod:`symattn.products.report.html` / :mod:`symattn.products.report.tex` -- the two renderers and their Jinja
  environments (templates in ``templates/``, overridable with ``--templates DIR``);
* :mod:`symattn.products.report.figures` -- the registry of deterministic matplotlib figures;
* :mod:`symattn.products.report.jupyter` -- ``_repr_latex_`` / ``_repr_html_`` for theorems and derivations.

This module only re-exports.
"""

from symattn.products.report.build import FORMATS, ReportError, ReportOptions, ReportResult, build_report
from symattn.products.report.content import Math, Paragraph, ReportSection, Table
from symattn.products.report.figures import FIGURES, figure, render

__all__ = [
    "FIGURES",
    "FORMATS",
    "Math",
    "Paragraph",
    "ReportError",
    "ReportOptions",
    "ReportResult",
    "ReportSection",
    "Table",
    "build_report",
    "figure",
    "render",
]
