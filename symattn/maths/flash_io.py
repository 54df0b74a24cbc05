r"""A symbolic model of FlashAttention's Algorithm 1: multiply-accumulates and HBM accesses.

Dao et al. (2022), Algorithm 1, for ``N`` tokens of width ``d`` and on-chip memory ``M``: key/value
blocks of ``B_c = M/(4d)`` rows, query blocks of ``B_r = min(B_c, d)`` rows, ``T_c = N/B_c`` outer
and ``T_r = N/B_r`` inner iterations (the block sizes are taken to divide ``N``; the paper rounds
up). Counted in numbers moved (elements), one access per element read or written:

* line 2: ``O, l, m`` initialised in HBM: ``N d + 2N`` writes;
* line 6 (outer loop): load ``K_j, V_j``: ``2 B_c d``;
* line 8 (inner loop): load ``Q_i, O_i, l_i, m_i``: ``2 B_r d + 2 B_r``;
* line 12-13: write ``O_i, l_i, m_i``: ``B_r d + 2 B_r``.

Multiply-accumulates: per inner iteration ``S_ij = Q_i K_j^T`` (``B_r d B_c``) and
``P_ij V_j`` (``B_r B_c d``). Standard attention (the paper's Algorithm 0) reads ``Q, K``, writes
``S``, reads ``S``, writes ``P``, reads ``P, V``, writes ``O``: ``4 N d + 4 N^2`` accesses.

>>> import sympy as sp
>>> N, d, Br, Bc = sp.symbols("N d B_r B_c", positive=True, integer=True)
>>> FlashMACs(N, d, Br, Bc).doit()
2*N**2*d
>>> sp.expand(FlashHBM(N, d, Br, Bc).doit())
3*N*d + 2*N + 3*N**2*d/B_c + 4*N**2/B_c

With ``B_c = 400`` (not a divisor of ``N = 1024``: 3 key blocks of 400, 400, 224 rows) and
``B_r = 64``: ``N d + 2N = 67584`` to initialise, ``2 N d = 131072`` to load K and V, and 3 sweeps
of the queries at ``3 N d + 4 N = 200704`` each, 800768 in all, against ``4 N d + 4 N^2`` for
standard attention:

>>> flash_hbm_accesses(1024, 64, 100 * 1024)
{'block_c': 400, 'block_r': 64, 'flash': 800768, 'standard': 4456448}

References
----------
Dao, Fu, Ermon, Rudra and Re, "FlashAttention: Fast and Memory-Efficient Exact Attention with
IO-Awareness", NeurIPS 2022, Algorithm 0, Algorithm 1 and Theorem 2.
"""

from __future__ import annotations

import sympy as sp

from symattn.kernel.definitions import define
from symattn.maths.complexity import ArrayEntries, MatMulMACs, _dimension

__all__ = ["FlashHBM", "FlashMACs", "StandardHBM", "TiledWorkspace", "flash_hbm_accesses"]


class _Model(sp.Function):
    @classmethod
    def eval(cls, *args):
        return None

    def doit(self, **hints):
        e = self.expanded().replace(lambda x: isinstance(x, MatMulMACs), lambda x: x.doit())
        return sp.expand(e.doit())


class FlashMACs(_Model):
    """Multiply-accumulates of Algorithm 1: ``T_c T_r`` inner iterations of ``Q_i K_j^T`` and ``P_ij V_j``."""

    nargs = 4

    def expanded(self):
        N, d, Br, Bc = self.args
        i, j = sp.symbols("i j", integer=True, positive=True)
        body = MatMulMACs(Br, d, Bc) + MatMulMACs(Br, Bc, d)
        return sp.Sum(sp.Sum(body, (i, 1, N / Br)), (j, 1, N / Bc))

    def _latex(self, printer):
        return r"\operatorname{MAC}_{\mathrm{flash}}\left(%s\right)" % ", ".join(printer._print(a) for a in self.args)


class FlashHBM(_Model):
    """HBM accesses of Algorithm 1 (elements read or written), line by line (see the module docstring)."""

    nargs = 4

    def expanded(self):
        N, d, Br, Bc = self.args
        i, j = sp.symbols("i j", integer=True, positive=True)
        inner = (2 * Br * d + 2 * Br) + (Br * d + 2 * Br)  # lines 8 and 12-13
        return (N * d + 2 * N) + sp.Sum(2 * Bc * d + sp.Sum(inner, (i, 1, N / Br)), (j, 1, N / Bc))

    def _latex(self, printer):
        return r"\operatorname{HBM}_{\mathrm{flash}}\left(%s\right)" % ", ".join(printer._print(a) for a in self.args)


class StandardHBM(_Model):
    """HBM accesses of standard attention (Algorithm 0): read Q, K; write S; read S; write P; read P, V; write O."""

    nargs = 2

    def expanded(self):
        N, d = self.args
        q = k = v = o = ArrayEntries(N, d)
        s = p = ArrayEntries(N, N)
        # read Q, K and write S; read S and write P; read P, V and write O
        return sp.Add(q, k, s, s, p, p, v, o, evaluate=False)

    def _latex(self, printer):
        return r"\operatorname{HBM}_{\mathrm{std}}\left(%s\right)" % ", ".join(printer._print(a) for a in self.args)


class TiledWorkspace(_Model):
    r"""Live workspace (elements) of ``numeric.tiled_attention`` for one batch element, ``n`` queries
    and keys of width ``d = d_v``, blocks ``b_q x b_k``, outside its inputs and outputs, read off the
    code array by array:

    * ``v1 = [V | 1]``: ``n (d + 1)``; copies of ``K, V`` (cast or masked keys zeroed): at most ``2 n d``;
      the Cauchy-Schwarz norms of the rows of ``Q`` and ``K``: ``2 n``;
    * the score tile ``s_full`` and an edge tile: ``2 b_q b_k``; the scaled query block ``q_i``: ``b_q d``;
    * ``acc``, the product ``P [V | 1]`` and its rescaled copy: ``3 b_q (d + 1)``;
    * per-row vectors (``m``, the new maximum, the shift, the rescaling factor, the row max): ``5 b_q``.

    >>> n, d, bq, bk = sp.symbols("n d b_q b_k", positive=True, integer=True)
    >>> TiledWorkspace(n, d, bq, bk).doit()
    2*b_k*b_q + 4*b_q*d + 8*b_q + 3*d*n + 3*n
    """

    nargs = 4

    def expanded(self):
        n, d, bq, bk = self.args
        inputs_side = n * (d + 1) + 2 * n * d + 2 * n
        tiles = 2 * bq * bk + bq * d
        accumulators = 3 * bq * (d + 1) + 5 * bq
        return inputs_side + tiles + accumulators

    def _latex(self, printer):
        return r"\operatorname{W}_{\mathrm{tiled}}\left(%s\right)" % ", ".join(printer._print(a) for a in self.args)


define("tiled_workspace", TiledWorkspace, lambda e: e.expanded(),
       text="numeric.tiled_attention's arrays besides inputs and outputs")
define("flash_macs", FlashMACs, lambda e: e.expanded(),
       text="Algorithm 1: Q_i K_j^T and P_ij V_j in every inner iteration")
define("flash_hbm", FlashHBM, lambda e: e.expanded(), text="Algorithm 1, lines 2, 6, 8, 12-13")
define("standard_hbm", StandardHBM, lambda e: e.expanded(), text="Algorithm 0: S and P round-trip through HBM")


def flash_hbm_accesses(n, d, sram) -> dict:
    """Block sizes and HBM accesses (elements) of Algorithm 1 with on-chip memory ``sram`` (elements),
    and of standard attention: ``B_c = ceil(M/(4d))``, ``B_r = min(B_c, d)``, loops over
    ``ceil(N/B)`` blocks, edge blocks moving only their real rows. Every key block's rows sum to
    ``N``, and so do every sweep's query rows, so the count is, exactly,
    ``3 N d + 2 N + ceil(N/B_c) (3 d + 4) N`` -- Python integers for integer sizes, SymPy
    expressions (with the ceilings) for symbolic ones.

    >>> flash_hbm_accesses(4096, 64, 4096 * 64)["flash"] < flash_hbm_accesses(4096, 64, 4096 * 64)["standard"]
    True
    >>> N, d, M = sp.symbols("N d M", positive=True, integer=True)
    >>> flash_hbm_accesses(N, d, M)["flash"]
    3*N*d + N*(3*d + 4)*ceiling(N/ceiling(M/(4*d))) + 2*N
    """
    n, d, sram = (_dimension(name, v) for name, v in (("n", n), ("d", d), ("sram", sram)))
    if all(x.is_Integer for x in (n, d, sram)):
        n, d, sram = int(n), int(d), int(sram)
        bc = -(-sram // (4 * d))
        br = min(bc, d)
        outer = -(-n // bc)
    else:
        bc = sp.ceiling(sram / (4 * d))
        br = sp.Min(bc, d)
        outer = sp.ceiling(n / bc)
    flash = 3 * n * d + 2 * n + outer * (3 * d + 4) * n
    return {"block_c": bc, "block_r": br, "flash": flash, "standard": 4 * n * d + 4 * n * n}
