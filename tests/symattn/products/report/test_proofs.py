"""Every proof fully shown: nested derivations numbered in place, an ``apply_theorem`` step's lemma
with its instance and side conditions, "uses" and "used by", and prose errors that name the
theorem and the field."""

from __future__ import annotations

import pytest
import sympy as sp

from symattn.engine.theorem import Theorem, registry
from symattn.language.derivation import Derivation
from symattn.language.statement import Assumption, Statement
from symattn.products.report.content import TextError, link_uses, parse_text, pdf_text, short_source, theorem_entry
from symattn.products.report.html import MathML, environment


def _entry(theorem_id: str):
    return theorem_entry(registry.get(theorem_id), None)


@pytest.fixture(scope="module", autouse=True)
def _library():
    from symattn.engine.theorem import load_all

    load_all()


def test_an_induction_shows_its_base_case_and_its_step_with_the_hypothesis_it_may_use():
    step = _entry("online_softmax_any_tiling").steps[0]
    assert step.rule == "bounded_induction" and [d.label for d in step.nested] == ["Base case", "Inductive step"]
    base, ind = step.nested
    assert (base.number, ind.number) == ("1.1", "1.2")
    assert [s.number for s in ind.steps] == [f"1.2.{k}" for k in range(1, len(ind.steps) + 1)]
    assert base.assumes == [] and [name for name, _ in ind.assumes] == ["induction_hypothesis", "induction_range"]
    assert "t - 1" in ind.assumes[0][1]  # the claim one tile earlier
    # the nested derivation's own arguments are typeset too: the step's lemma is found inside it
    assert any(s.lemma == "online_softmax_merge" for s in ind.steps)


def test_an_entrywise_proof_is_shown_in_place():
    step = _entry("softmax_rows_permutation_conjugate").steps[0]
    assert step.rule == "matrix_entrywise" and step.nested[0].label == "Entrywise proof"
    assert [a.name for a in step.args] == ["i", "j"] and all(a.kind == "math" for a in step.args)


def test_an_applied_theorem_shows_its_lemma_instance_and_side_conditions():
    steps = [s for s in _entry("rope_relative_logit").steps if s.lemma]
    assert [s.lemma for s in steps] == ["rotation_compose"]
    s = steps[0]
    assert {k for k, _ in s.mapping} == {r"\alpha", r"\beta"} and s.args == []
    assert [name for name, _, _ in s.side_conditions] == [h.name for h in registry.get("rotation_compose").hypotheses]


def test_uses_and_used_by_are_inverse():
    entries = [theorem_entry(t, None) for t in registry]
    link_uses(entries)
    by_id = {e.id: e for e in entries}
    assert "online_softmax_merge" in by_id["online_softmax_any_tiling"].uses
    for e in entries:
        for u in e.uses:
            if u in by_id:
                assert e.id in by_id[u].used_by
        for u in e.used_by:
            assert e.id in by_id[u].uses


def test_the_html_links_the_lemma_and_numbers_nested_steps():
    m = MathML()
    m.refs = {t.id for t in registry}
    entry = _entry("online_softmax_any_tiling")
    link_uses([entry, _entry("online_softmax_merge")])
    page = environment(m).get_template("theorem.html.j2").render(entry=entry, figures={}, figure_errors={},
                                                                known_ids=m.refs)
    assert 'href="#thm-online_softmax_merge"' in page
    assert 'id="thm-online_softmax_any_tiling-step-1.2.1"' in page  # steps are numbered per theorem
    assert "Inductive step" in page and "induction_hypothesis" in page
    assert m.fallbacks == []


x = sp.Symbol("x", real=True)


@pytest.mark.parametrize("field, value, where", [
    ("title", "a $b", "theorem bad_text, field title"),
    ("plain", "costs $5", "theorem bad_text, field plain"),
    ("notes", "`unclosed", "theorem bad_text, field notes"),
])
def test_a_malformed_dollar_or_backtick_names_the_theorem_and_field(field, value, where):
    kwargs = {"title": "ok", field: value}
    thm = Theorem("bad_text", statement=Statement(x, x), source="extension", **kwargs)
    with pytest.raises(TextError, match=where):
        theorem_entry(thm, None)


def test_a_malformed_hypothesis_text_or_step_note_is_named_too():
    thm = Theorem("bad_hyp", "ok", Statement(x, x), source="extension",
                  hypotheses=(Assumption("h1", text="x $> 0"),))
    with pytest.raises(TextError, match="theorem bad_hyp, hypothesis h1"):
        theorem_entry(thm, None)
    thm = Theorem("bad_note", "ok", Statement(x + 0, x), source="extension",
                  derivation=Derivation(x).eq(x, "algebra", note="$x"))
    with pytest.raises(TextError, match="theorem bad_note, step 1, note"):
        theorem_entry(thm, None)


def test_prose_marks_files_and_dotted_names_as_code():
    parts = parse_text("see tests/derivations/test_x.py and numeric.reference.attention, 3.5 and e.g. this")
    assert ("code", "tests/derivations/test_x.py") in parts and ("code", "numeric.reference.attention") in parts
    assert all(k == "text" for k, v in parts if "3.5" in v or "e.g." in v)


def test_bookmarks_are_plain_unicode():
    assert pdf_text(r"$\lVert J\rVert_2 \le 2 (1 - \max_j a_j)$ and "
                    r"$\sqrt{d_k}$") == "‖J‖_2 ≤2 (1 - max_j a_j) and √(d_k)"


def test_the_summary_source_names_the_seed_and_the_result():
    assert short_source("004_b987b516506401e6.txt, 'Did You Know?' (softmax unchanged); extension") == \
        "Attention and Transformers: 'Did You Know?'; extension"
