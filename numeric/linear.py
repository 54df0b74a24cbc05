r"""Linear attention (Katharopoulos et al., 2020): softmax replaced by a feature map, two orders.

.. math::

    O_i = \frac{\phi(q_i)^\top \sum_j \phi(k_j) v_j^\top}{\phi(q_i)^\top \sum_j \phi(k_j)}

Associativity gives two evaluation orders of the same numbers:

* ``order="quadratic"``: :math:`(\phi(Q)\phi(K)^\top)\,V`, an ``n_q x n_k`` matrix, O(n^2 d);
* ``order="linear"``: :math:`\phi(Q)\,(\phi(K)^\top V)`, a ``d x d_v`` matrix, O(n d d_v).

Causal attention (query ``i`` sees keys ``j <= i``) masks the quadratic matrix, or, in the linear
order, replaces the sums by prefix sums :math:`S_i = \sum_{j \le i} \phi(k_j) v_j^\top`,
:math:`z_i = \sum_{j \le i} \phi(k_j)` (the recurrent form, eq. 18-20 of the paper).

References
----------
Katharopoulos et al., "Transformers are RNNs: Fast Autoregressive Transformers with Linear
Attention", ICML 2020, eq. (4)-(7), (18)-(20).
"""

from __future__ import annotations

import numpy as np

from .validation import check_attention_args

__all__ = ["elu_plus_one", "linear_attention"]

_ORDERS = ("linear", "quadratic")


def elu_plus_one(x) -> np.ndarray:
    r""":math:`\phi(x) = \operatorname{elu}(x) + 1`, positive everywhere (the paper's eq. 7).

    >>> elu_plus_one(np.array([-np.inf, 0.0, 2.0]))
    array([0., 1., 3.])
    """
    x = np.asarray(x)
    return np.where(x > 0, x + 1, np.exp(np.minimum(x, 0)))


def linear_attention(q, k, v, *, feature_map=elu_plus_one, causal=False, order="linear") -> np.ndarray:
    r"""Normalised linear attention of ``q (..., n_q, d)``, ``k (..., n_k, d)``, ``v (..., n_k, d_v)``.

    ``causal=True`` requires ``n_q == n_k``. Both orders compute the same values.

    Examples
    --------
    With :math:`\phi \equiv 1` every key weighs the same: the output is the mean of ``v``.

    >>> v = np.array([[1.0], [3.0]])
    >>> linear_attention(np.zeros((1, 1)), np.zeros((2, 1)), v, feature_map=np.ones_like)
    array([[2.]])
    """
    if order not in _ORDERS:
        raise ValueError(f"order must be one of {_ORDERS}, got {order!r}")
    args = check_attention_args(q, k, v, causal=causal)
    if args.causal is not None and args.n_q != args.n_k:
        raise ValueError(
            f"causal linear attention needs n_q == n_k, got q {args.shapes[0][0]} and k {args.shapes[1][0]}"
        )
    return args.user(_linear(args, feature_map, order), 2)


def _linear(args, feature_map, order):
    fq = feature_map(args.q)  # (..., n_q, d)
    fk = feature_map(args.k)  # (..., n_k, d)
    v = args.v  # (..., n_k, d_v)
    if order == "quadratic":
        a = fq @ fk.swapaxes(-1, -2)  # (..., n_q, n_k)  phi(Q) phi(K)^T
        if args.causal is not None:
            a = np.tril(a)  # query i keeps keys j <= i
        return (a @ v) / a.sum(axis=-1, keepdims=True)
    if args.causal is None:
        kv = fk.swapaxes(-1, -2) @ v  # (..., d, d_v)  phi(K)^T V
        z = fk.sum(axis=-2)  # (..., d)  phi(K)^T 1
        return (fq @ kv) / (fq @ z[..., None])
    s = np.cumsum(fk[..., :, None] * v[..., None, :], axis=-3)  # (..., n, d, d_v)  S_i
    z = np.cumsum(fk, axis=-2)  # (..., n, d)  z_i
    num = np.einsum("...nd,...nde->...ne", fq, s)  # (..., n, d_v)  phi(q_i)^T S_i
    den = np.einsum("...nd,...nd->...n", fq, z)[..., None]  # (..., n, 1)  phi(q_i)^T z_i
    return num / den
