"""The online-softmax helper: states, merge (any reference), TileEnd; invalid arguments."""

import pytest
import sympy as sp

from symattn.language.printing import latex
from symattn.maths.online_softmax import TileEnd, merge, state

x1, x2, x3, y1, y2, y3, r = sp.symbols("x1 x2 x3 y1 y2 y3 r", real=True)
w = sp.IndexedBase("w", integer=True, nonnegative=True)
t = sp.Symbol("t", integer=True, positive=True)


def test_merge_with_any_reference_is_the_state_of_the_union():
    a, b = state([x1], [y1], x1), state([x2, x3], [y2, y3], r)
    both = state([x1, x2, x3], [y1, y2, y3], r)
    for ref in (None, r, sp.S.Zero, x1 + 7):
        merged = merge(a, b, m=ref)
        assert sp.simplify(merged.output - both.output) == 0
        assert sp.simplify(sp.expand(merged.l * sp.exp(merged.m) - both.l * sp.exp(both.m))) == 0


def test_state_output_and_lse_are_softmax_average_and_logsumexp():
    st = state([x1, x2], [y1, y2])
    z = sp.exp(x1) + sp.exp(x2)
    assert sp.simplify(st.output - (sp.exp(x1) * y1 + sp.exp(x2) * y2) / z) == 0
    assert sp.simplify(sp.expand_log(sp.exp(st.lse) - z, force=True)) == 0


def test_symbolic_block_state_and_matrix_values():
    j = sp.Symbol("j", integer=True)
    s, v = sp.IndexedBase("s"), sp.IndexedBase("v")
    st = state(s, v, r, index=(j, 1, t))
    assert st.as_matrix() == sp.ImmutableMatrix([sp.Sum(sp.exp(s[j] - r), (j, 1, t)),
                                                 sp.Sum(sp.exp(s[j] - r) * v[j], (j, 1, t))])
    vec = state([x1], [sp.Matrix([y1, y2])], x1)
    assert vec.o == sp.Matrix([y1, y2])
    with pytest.raises(TypeError):
        vec.as_matrix()


def test_tile_end_unfolds_one_tile_and_knows_its_sign():
    assert TileEnd(w, t).unfold() == TileEnd(w, t - 1) + w[t]
    assert TileEnd(w, 0) == 0
    assert TileEnd(w, 2).doit() == w[1] + w[2]
    assert TileEnd(w, t - 1).is_nonnegative is True
    assert TileEnd(w, t - 1).is_positive is None  # widths may be 0
    assert TileEnd(sp.IndexedBase("u", integer=True, positive=True), t).is_positive is True
    assert latex(TileEnd(w, t)) == r"\operatorname{end}_{w}(t)"


@pytest.mark.parametrize(
    "call, error",
    [
        (lambda: state([x1], [y1, y2]), ValueError),
        (lambda: state([], []), ValueError),
        (lambda: state("x1", [y1]), TypeError),
        (lambda: state([x1], [y1], m="0"), TypeError),
        (lambda: state(x1, y1), TypeError),
        (lambda: state(sp.IndexedBase("s"), sp.IndexedBase("v"), index=(t, 1, 2)), ValueError),
        (lambda: state(sp.IndexedBase("s"), sp.IndexedBase("v"), r, index=(t, 1)), ValueError),
        (lambda: merge(state([x1], [y1]), (x2, 1, y2)), TypeError),
        (lambda: TileEnd(sp.IndexedBase("u"), t), ValueError),
        (lambda: TileEnd(w, sp.Rational(1, 2)), TypeError),
        (lambda: TileEnd(w[1], t), TypeError),
        (lambda: state([True], [y1]), TypeError),
    ],
)
def test_invalid_arguments_raise_clear_errors(call, error):
    with pytest.raises(error):
        call()
