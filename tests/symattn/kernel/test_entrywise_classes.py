"""The kernel's ``matrix_entrywise`` (extensionality): two matrices of shapes shown equal are equal when
the kernel has shown their ``(i, j)`` entries equal for fresh generic indices ``i, j`` under exactly the
step's hypotheses and ``1 <= i <= rows``, ``1 <= j <= columns``. The side conditions are the kernel's:
a wrong entry proof, an index that is not fresh (in a matrix, a shape or a hypothesis), an index with an
assumption a generic index may not have, a shape mismatch, one index twice, an entry theorem made under
more hypotheses, a name standing for two matrices: each fails, at the kernel, for its reason."""

import pytest
import sympy as sp

from symattn.kernel.axioms import axiom
from symattn.kernel.schemas.matrices import entry_hypotheses, matrix_entry
from symattn.kernel.terms import KernelError
from symattn.kernel.thm import by_zero, refl
from symattn.kernel.zero import HYPOTHESES
from symattn.language.derivation import Derivation
from symattn.language.statement import Equation, IndexRange
from symattn.maths.permutation import Permutation, PermutationMatrix, SoftmaxRows
from symattn.maths.softmax import Softmax
from tests.symattn.kernel.claims import Claim, assert_proved, assert_rejected, step

n, d = sp.symbols("n d", integer=True, positive=True)
i, j = sp.symbols("i j", integer=True, positive=True)
X, Y = sp.MatrixSymbol("X", n, n), sp.MatrixSymbol("Y", n, n)
A, B = sp.MatrixSymbol("A", n, d), sp.MatrixSymbol("B", d, n)
S = sp.MatrixSymbol("S", n, n)
P = PermutationMatrix("sigma", n)
PERM = Permutation("sigma_perm", sigma="sigma", n=n)
xs, ss = sp.IndexedBase("X"), sp.IndexedBase("S")
sigma = P.sigma
k1 = sp.Symbol("k_1", integer=True, positive=True)


def ew(name, lhs, rhs, proof=None, why="", ii=i, jj=j, hypotheses=(), **kw):
    """``lhs = rhs`` in one matrix_entrywise step; the entry proof is ``proof`` or the empty chain at
    the kernel's entry of ``lhs`` (the kernel bridges its ends to the entries by the zero test)."""
    if proof is None:
        proof = Derivation(matrix_entry(lhs, ii, jj) if isinstance(ii, sp.Symbol) and ii.is_integer else sp.S.Zero)
    return Claim(name, lhs, rhs, (step(rhs, "matrix_entrywise", i=ii, j=jj, proof=proof),), bad_step=1, why=why,
                 hypotheses=hypotheses, **kw)


i_even = sp.Symbol("i", integer=True, positive=True, even=True)
j_odd = sp.Symbol("j", integer=True, positive=True, odd=True)
i_real = sp.Symbol("i", positive=True, noninteger=True)
i_neg = sp.Symbol("i", integer=True, negative=True)
Xi = sp.MatrixSymbol("X", n, i)

FALSE_CLAIMS = [
    # the entries differ: softmax_rows(P S) is not softmax_rows(S) P
    ew("softmax_rows_of_ps_is_softmax_times_p", SoftmaxRows(P * S), SoftmaxRows(S) * P, hypotheses=(PERM,),
       why="not from"),
    # a true statement with an entry proof about another matrix: the proof does not start at the entry
    ew("entry_proof_of_another_matrix", SoftmaxRows(P * S), P * SoftmaxRows(S), hypotheses=(PERM,),
       proof=Derivation(matrix_entry(SoftmaxRows(S), i, j)), why="not from"),
    ew("transpose_is_the_matrix", X, X.T, why="not from"),
    ew("the_identity_is_zero", sp.Identity(n), sp.ZeroMatrix(n, n), why="not from"),
    # i occurs in the matrices: (i - j) I = 0 entrywise, but i is not generic
    ew("index_in_a_scalar_factor", (i - j) * sp.Identity(n), sp.ZeroMatrix(n, n), why="not fresh"),
    ew("index_in_a_shape", Xi, sp.ZeroMatrix(n, i), proof=Derivation(sp.S.Zero), why="not fresh"),
    # a hypothesis pins entry (i, j): X = 0 would follow from X[i, j] = 0 if i, j were generic
    ew("index_in_a_hypothesis", X, sp.ZeroMatrix(n, n),
       proof=Derivation(xs[i, j]).eq(0, "substitute", using="x_ij_is_0"),
       hypotheses=(Equation("x_ij_is_0", lhs=xs[i, j], rhs=0),), why="mention"),
    # an even i and an odd j are never equal: delta(i, j) = 0, and I = 0 would follow
    ew("even_and_odd_indices", sp.Identity(n), sp.ZeroMatrix(n, n), ii=i_even, jj=j_odd,
       proof=Derivation(sp.S.Zero), why="assumptions"),
    ew("noninteger_index", sp.Identity(n), sp.ZeroMatrix(n, n), ii=i_real, proof=Derivation(sp.S.Zero),
       why="integer symbol"),
    ew("negative_index", X, sp.ZeroMatrix(n, n), ii=i_neg, proof=Derivation(sp.S.Zero), why="assumptions"),
    ew("shape_mismatch", sp.ZeroMatrix(n, n), sp.ZeroMatrix(n, d), proof=Derivation(sp.S.Zero), why="shape"),
    ew("one_index_twice", X, X.T, ii=i, jj=i, proof=Derivation(xs[i, i]), why="different"),
    ew("a_reserved_name", X, X.T, ii=k1, proof=Derivation(xs[k1, j]), why="reserved"),
]

TRUE_CLAIMS = [
    ew("transpose_twice", sp.Transpose(sp.Transpose(X)), X),
    ew("sum_commutes", sp.MatAdd(X, Y), sp.MatAdd(Y, X)),
    # the delta contracted inside the entry proof, where the kernel knows i in 1..n (j in 1..d)
    ew("identity_times_x", sp.MatMul(sp.Identity(n), X), X,
       proof=Derivation(matrix_entry(sp.MatMul(sp.Identity(n), X), i, j)).eq(xs[i, j], "kronecker_delta_contraction")),
    ew("a_times_identity", sp.MatMul(A, sp.Identity(d)), A,
       proof=Derivation(matrix_entry(sp.MatMul(A, sp.Identity(d)), i, j))
       .eq(sp.IndexedBase("A")[i, j], "kronecker_delta_contraction")),
    ew("transpose_of_a_product", sp.Transpose(sp.MatMul(A, B)), sp.MatMul(B.T, A.T)),
    ew("transpose_of_a_sum", sp.Transpose(sp.MatAdd(X, Y)), sp.MatAdd(X.T, Y.T)),
    ew("zero_plus_x", sp.MatAdd(sp.ZeroMatrix(n, n), X), X),
    ew("ones_times_ones", sp.MatMul(sp.OneMatrix(n, 1), sp.OneMatrix(1, n)), sp.OneMatrix(n, n)),
    ew("double", 2 * X, sp.MatAdd(X, X)),
    ew("softmax_rows_commutes_with_row_permutations", SoftmaxRows(P * S), P * SoftmaxRows(S), hypotheses=(PERM,),
       proof=Derivation(matrix_entry(SoftmaxRows(P * S), i, j))
       .eq(sp.exp(ss[sigma(i), j]) / sp.Sum(sp.exp(ss[sigma(i), k1]), (k1, 1, n)), "definition", name="softmax")
       .eq(Softmax(sp.Lambda(k1, ss[sigma(i), k1]), j, n), "definition", name="softmax")),
]


@pytest.mark.parametrize("claim", FALSE_CLAIMS, ids=lambda c: c.id)
def test_entrywise_with_a_side_condition_broken_is_refused(claim):
    assert_rejected(claim)


@pytest.mark.parametrize("claim", TRUE_CLAIMS, ids=lambda c: c.id)
def test_entrywise_with_the_entries_shown_equal_is_proved(claim):
    assert_proved(claim)


def test_a_name_standing_for_two_matrices_is_refused_even_in_a_true_statement():
    # X (n x n) and X (n x d) would have the same entries X[i, j]: the kernel refuses to read them
    lhs = sp.MatAdd(X, sp.MatMul(sp.MatrixSymbol("X", n, d), B))
    # refused with the statement, before any step (one name, one symbol)
    assert_rejected(ew("a_name_for_two_matrices", lhs, lhs, why="different symbols named"))


# ------------------------------------------------------------------ the schema itself, without the rule
def _under(hyps, fn):
    token = HYPOTHESES.set(tuple(hyps))
    try:
        return fn()
    finally:
        HYPOTHESES.reset(token)


def _entry_thm(lhs, extra=()):
    """``entry(lhs) = entry(lhs)`` made under the kernel's entry hypotheses plus ``extra``."""
    ctx = _under((), lambda: entry_hypotheses(lhs, i, j)) + tuple(extra)
    return _under(ctx, lambda: refl(matrix_entry(lhs, i, j)))


def test_the_schema_proves_an_instance_from_an_entry_theorem_under_its_ranges():
    t = _entry_thm(X)
    thm = _under((), lambda: axiom("matrix_entrywise", lhs=X, rhs=sp.Transpose(X.T), i=i, j=j, entries=t))
    assert thm.relation == "=" and thm.lhs == X


@pytest.mark.parametrize("entries, why", [
    # made under one more hypothesis than the kernel gives an entry proof (i >= 2)
    (lambda: _entry_thm(X, (IndexRange("i_ge_2", index=i, lower=2, upper=n),)), "hypotheses"),
    (lambda: _under((), lambda: refl(xs[j, i])), "not entry"),  # the entries of X.T
    (lambda: "X[i, j] = X[i, j]", "not an equation the kernel has shown"),  # a claim, not a theorem
    (lambda: _under((), lambda: by_zero(xs[i, j] + 0, xs[i, j])), None),  # a kernel theorem of the entries: accepted
])
def test_the_schema_checks_the_entry_theorem_itself(entries, why):
    t = entries()
    run = lambda: _under((), lambda: axiom("matrix_entrywise", lhs=X, rhs=X, i=i, j=j, entries=t))  # noqa: E731
    if why is None:
        assert run().relation == "="
    else:
        with pytest.raises(KernelError, match=why):
            run()


def test_the_schema_refuses_an_index_a_hypothesis_mentions_though_the_rule_is_bypassed():
    t = _entry_thm(X)
    pin = Equation("pin", lhs=xs[i, 1], rhs=0)
    with pytest.raises(KernelError, match="mention"):
        _under((pin,), lambda: axiom("matrix_entrywise", lhs=X, rhs=X, i=i, j=j, entries=t))
