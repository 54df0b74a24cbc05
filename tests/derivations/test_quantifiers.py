"""A title or claim says no more than the formal statement (issue 20).

Every theorem of the library carries a one-sentence ``claim``; and every quantified word in a title
or claim must be backed by the statement's form. The statement's free symbols are universally
quantified (the hypotheses restrict them), so:

* "every", "all", "any", "for each", "whatever" need a free symbol (or a ``forall`` hypothesis):
  a closed statement about concrete numbers is about one case;
* "exactly" needs an equation, not a bound;
* "Theta" needs an exact count (an equation): a one-sided bound is only ``O`` or ``Omega``;
* "at most" / "at least" need a relation pointing that way (or an inequality among the hypotheses,
  which the word may qualify: "a window at least as long as the sequence");
* "unbounded" needs a free real parameter on which the equation's right side depends as a
  non-constant polynomial (or that a strict lower bound carries);
* "not Lipschitz" needs a strict lower bound ``>`` whose right side carries a free real constant
  ``L`` (for every ``L``), with the dimensions symbolic.

The words are matched in the prose, outside maths spans, except Theta, which is matched anywhere.
"""

from __future__ import annotations

import re

import pytest
import sympy as sp

from symattn.engine.theorem import load_all
from symattn.language.statement import Equation
from symattn.products.report.content import parse_text

REGISTRY = load_all()
THEOREMS = list(REGISTRY)


def _prose(text: str) -> str:
    """The words of a title or claim outside maths and code spans, lower-cased."""
    return " ".join(part for kind, part in parse_text(text) if kind in ("text", "ref")).lower()


def _free(thm) -> set:
    st = thm.statement
    out = set(st.free_symbols)
    for h in thm.hypotheses:
        if isinstance(h, Equation):
            out |= set(h.forall)
    return {s for s in out if isinstance(s, (sp.Symbol, sp.IndexedBase, sp.Idx))}


def _real_parameters(thm) -> set:
    return {s for s in thm.statement.free_symbols if isinstance(s, sp.Symbol) and s.is_integer is not True}


def _universal(thm) -> str | None:
    return None if _free(thm) else "the statement has no free symbol: it is about one case"


def _exact(thm) -> str | None:
    return None if thm.statement.relation == "=" else f"the statement is a bound ({thm.statement.relation})"


def _theta(thm) -> str | None:
    return None if thm.statement.relation == "=" else (
        f"Theta needs both bounds; the statement is one-sided ({thm.statement.relation})")


def _inequality_hypothesis(thm) -> bool:
    """Some hypothesis is an inequality (the word may qualify a hypothesis: 'a window at least as long as')."""
    return any(isinstance(getattr(h, "condition", None), (sp.core.relational._Inequality,)) for h in thm.hypotheses)


def _at_most(thm) -> str | None:
    if thm.statement.relation in ("<=", "<") or _inequality_hypothesis(thm):
        return None
    return f"relation {thm.statement.relation}, not <= or <, and no hypothesis is an inequality"


def _at_least(thm) -> str | None:
    if thm.statement.relation in (">=", ">") or _inequality_hypothesis(thm):
        return None
    return f"relation {thm.statement.relation}, not >= or >, and no hypothesis is an inequality"


def _unbounded(thm) -> str | None:
    st = thm.statement
    for x in _real_parameters(thm):
        rhs = st.rhs
        if st.relation == "=" and isinstance(rhs, sp.Expr) and rhs.is_polynomial(x) and sp.degree(rhs, x) >= 1:
            return None
        if st.relation in (">", ">=") and x in getattr(rhs, "free_symbols", set()):
            return None
    return "no free real parameter that the statement lets grow without bound"


def _not_lipschitz(thm) -> str | None:
    st = thm.statement
    if st.relation != ">":
        return f"a strict lower bound '>' is needed, got {st.relation}"
    constants = [x for x in _real_parameters(thm) if x in st.rhs.free_symbols]
    if not constants:
        return "no free real constant L on the right side: not 'for every L'"
    if any(isinstance(dim, sp.Integer) for dim in thm.dimensions):
        return "a dimension is fixed to a number"
    return None


#: (kind, pattern in the prose, the check of the statement)
WORDS = [
    ("universal", r"\b(every|all|any|for each|whatever)\b", _universal),
    ("exact", r"\bexactly\b", _exact),
    ("at most", r"\bat most\b", _at_most),
    ("at least", r"\bat least\b", _at_least),
    ("unbounded", r"\b(unbounded|without bound)\b", _unbounded),
    ("not lipschitz", r"\bnot lipschitz\b|\bnon-lipschitz\b", _not_lipschitz),
]
THETA = re.compile(r"\\Theta|Θ")


def _cases():
    for thm in THEOREMS:
        for field in ("title", "claim"):
            text = getattr(thm, field)
            prose = _prose(text)
            for kind, pattern, check in WORDS:
                if re.search(pattern, prose):
                    yield pytest.param(thm, field, kind, check, id=f"{thm.id}-{field}-{kind}")
            if THETA.search(text):
                yield pytest.param(thm, field, "theta", _theta, id=f"{thm.id}-{field}-theta")


def test_every_library_theorem_has_a_one_line_claim():
    missing = [t.id for t in THEOREMS if not t.claim.strip()]
    assert not missing, f"theorems without a claim: {missing}"
    for t in THEOREMS:
        assert "\n" not in t.claim and len(t.claim) <= 400, t.id
        parse_text(t.claim, where=f"theorem {t.id}, field claim")  # balanced $ and backticks


@pytest.mark.parametrize("thm, field, kind, check", list(_cases()))
def test_a_quantified_word_is_backed_by_the_statement(thm, field, kind, check):
    problem = check(thm)
    assert problem is None, f"{thm.id}: the {field} says '{kind}', but {problem}"


def test_the_words_are_found_at_all():
    # the matcher itself: each class of word occurs in some title or claim of the library
    kinds = {c.values[2] for c in _cases()}
    assert {"universal", "exact", "at most", "at least", "unbounded", "not lipschitz", "theta"} <= kinds


@pytest.mark.parametrize("statement_check, thm_id, expected", [
    # the checks refuse what issue 20 found: a derivative value is not 'not Lipschitz', a lower bound is not Theta
    (_not_lipschitz, "dot_product_self_attention_jacobian_unbounded", False),
    (_theta, "flash_attention_hbm_lower", False),
    (_theta, "flash_attention_hbm_upper", False),
    (_universal, "mlp_dominates_attention_at_n2048_d4096", False),
    (_exact, "flash_attention_hbm_upper", False),
    (_at_least, "softmax_jacobian_operator_norm_le_half", False),
    # and accept what the statements now say
    (_not_lipschitz, "dot_product_self_attention_not_lipschitz", True),
    (_unbounded, "dot_product_self_attention_jacobian_unbounded", True),
    (_theta, "standard_attention_hbm_accesses", True),
    (_universal, "softmax_add_const", True),
])
def test_the_checks_tell_backed_from_unbacked(statement_check, thm_id, expected):
    assert (statement_check(REGISTRY.get(thm_id)) is None) is expected


def test_the_issue_20_statements_have_their_quantifiers():
    lip = REGISTRY.get("dot_product_self_attention_not_lipschitz").statement
    assert {s.name for s in lip.free_symbols if isinstance(s, sp.Symbol)} >= {"n", "d", "L"}
    convex = REGISTRY.get("attention_output_convex_combination").statement
    names = {type(x).__name__ for x in sp.preorder_traversal(convex.lhs)}
    assert {"Entry", "Attention"} <= names  # the output itself, not only the weights
    assert any(getattr(x, "name", "") == "V" for x in convex.rhs.atoms(sp.IndexedBase))  # vector values V[j, c]
    hbm = REGISTRY.get("flash_attention_hbm_accesses_tiles")
    assert {h.name for h in hbm.hypotheses} >= {"key_tiles", "query_tiles"}
    assert sp.Symbol("T_c", integer=True, positive=True) in hbm.statement.rhs.free_symbols
