"""Report content: topic order, text with maths, options, and the optional sections."""

import sys
import types
from pathlib import Path

import pytest
import sympy as sp

from symattn.products.report.build import ReportOptions
from symattn.products.report.content import (
    TOPIC_ORDER,
    Math,
    Table,
    audit_section,
    problems_section,
    text_with_math,
    topic_key,
)


def test_known_topics_come_in_house_order_then_the_rest_alphabetically():
    topics = ["zeta", "problems", "rope", "alpha", "attention", "complexity"]
    assert sorted(topics, key=topic_key) == ["attention", "rope", "complexity", "problems", "alpha", "zeta"]
    assert TOPIC_ORDER[0] == "attention" and TOPIC_ORDER[-1] == "problems"


@pytest.mark.parametrize(
    "text, parts",
    [
        ("no maths", [("text", "no maths")]),
        ("$x$", [("math", "x")]),
        ("a $x$ b $y$", [("text", "a "), ("math", "x"), ("text", " b "), ("math", "y")]),
        ("price $3", [("text", "price $3")]),
        (r"escaped \$ and $x$", [("text", "escaped $ and "), ("math", "x")]),
        ("", []),
    ],
)
def test_text_splits_into_text_and_inline_maths(text, parts):
    assert text_with_math(text) == parts


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"formats": ("html", "docx")}, "formats must be a non-empty subset"),
        ({"formats": ()}, "formats must be a non-empty subset"),
        ({"jobs": 0}, "jobs must be a positive integer"),
        ({"jobs": 1.5}, "jobs must be a positive integer"),
        ({"time_limit": 0}, "time_limit must be a positive number of seconds"),
        ({"time_limit": float("nan")}, "time_limit must be a positive number of seconds"),
        ({"time_limit": float("inf")}, "time_limit must be a positive number of seconds at most 86400"),
        ({"time_limit": -1}, "time_limit must be a positive number of seconds"),
        ({"figures": "some"}, "figures must be 'all', 'used' or 'none'"),
        ({"templates": Path("/no/such/dir")}, "templates must be a directory"),
    ],
)
def test_invalid_report_options_are_rejected(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ReportOptions(**kwargs)


def test_formats_may_be_given_as_a_comma_list():
    assert ReportOptions(formats="html, pdf").formats == ("html", "pdf")


def test_audit_section_falls_back_when_the_module_is_missing(monkeypatch):
    monkeypatch.setitem(sys.modules, "symattn.products.audit", None)
    section, verdicts = audit_section()
    assert "Audit not available" in section.blocks[0].text and verdicts == []


def test_problems_section_falls_back_when_the_module_is_missing(monkeypatch):
    monkeypatch.setitem(sys.modules, "symattn.products.problems", None)
    assert "Problems not available" in problems_section(set()).blocks[0].text


def test_audit_entries_become_a_table_with_maths_for_expressions(monkeypatch):
    entry = types.SimpleNamespace(id="ratio_at_128k", source="000_ccf06b253f58a07c.txt, Key idea",
                                  claim="attention dominates by a factor of 30", stated=30,
                                  computed=sp.Rational(125, 16), verdict="refuted", note="it is n/(4d)")
    fake = types.ModuleType("symattn.products.audit")
    fake.run_audit = lambda: [entry]
    monkeypatch.setitem(sys.modules, "symattn.products.audit", fake)
    section, verdicts = audit_section()
    table = next(b for b in section.blocks if isinstance(b, Table))
    row = table.rows[0]
    assert row[0] == "`ratio_at_128k`" and row[2] == "30"  # the id as code
    assert isinstance(row[3], Math) and row[3].latex == r"\frac{125}{16}"
    assert verdicts == ["refuted"]


def test_problems_link_to_theorems_in_the_report(monkeypatch):
    p = types.SimpleNamespace(id="p1", title=r"Why divide by $\\sqrt{d_k}$", source="000", kind="proof",
                              statement="Show it.", theorem_ids=("softmax_add_const", "missing_id"), solution="")
    fake = types.ModuleType("symattn.products.problems")
    fake.all_problems = lambda: [p]
    monkeypatch.setitem(sys.modules, "symattn.products.problems", fake)
    section = problems_section({"softmax_add_const"})
    links = [b for b in section.blocks if b.kind == "links"][0]
    assert links.ids == ["softmax_add_const", "missing_id"] and links.known == [True, False]
