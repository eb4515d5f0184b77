"""The auto-checks of the exercises in the chapter "RoPE in a trained model" (book/trained_models.md)."""

from __future__ import annotations

import numpy as np

from ..attention_probe import offset_scores
from .checking import CheckResult, Hint, answer_number, call_student, diagnose, fresh_rng, fresh_seed, run_check


def _causal_map(seq: int, rng: np.random.Generator) -> np.ndarray:
    """A random (T, T) attention map: each row t a softmax over keys 0 … t, zero past t."""
    scores = rng.standard_normal((seq, seq)) * 2
    scores[np.triu_indices(seq, 1)] = -np.inf
    weights = np.exp(scores - scores.max(axis=1, keepdims=True))
    return weights / weights.sum(axis=1, keepdims=True)


def _offset_weight(weights: np.ndarray, offset: int) -> float:
    """The probe's s(o) for one head: rope_lib's `offset_scores` on the map as a batch of one."""
    return float(offset_scores(weights[None, None, None], max_offset=offset)[0, 0, offset - 1])


def check_offset_weight(offset_weight) -> CheckResult:
    """Exercise tm-ex-offset-code: `offset_weight(weights, offset)` is the mean, over the queries t ≥ offset, of one
    head's weight a_(t, t−offset) on the key `offset` positions back, for a (T, T) map of a causal head."""

    def body(fn):
        rng, fresh = np.random.default_rng(17), fresh_rng()
        cases = [(np.tril(np.ones((4, 4))) / np.arange(1, 5)[:, None], 1), (np.eye(6, k=-2) + np.eye(6)[:, [0]] * (np.arange(6) < 2)[:, None], 2)]
        cases += [(_causal_map(seq, rng), offset) for seq, offset in ((8, 1), (8, 3), (12, 5), (16, 8))]
        seed = fresh_seed(fresh)
        fresh_seq = int(fresh.integers(6, 20))
        cases.append((_causal_map(fresh_seq, np.random.default_rng(seed)), int(fresh.integers(1, fresh_seq // 2 + 1))))
        close = lambda a, b: bool(np.isclose(a, b, rtol=0, atol=1e-9))  # noqa: E731
        for weights, offset in cases:
            seq = len(weights)
            call = f"offset_weight(<a {seq}×{seq} map>, {offset})"
            got = answer_number(call_student(fn, call, weights.copy(), offset), call)
            expected = _offset_weight(weights, offset)
            if close(got, expected):
                continue
            t = np.arange(offset, seq)
            diagnose(got, [
                (lambda: float(np.diagonal(weights, offset).mean()),
                 f"{call}: direction — rows are queries and columns keys, so the key {offset} back of query t is column "
                 f"t − {offset}, below the main diagonal, not above it, where a causal map is zero"),
                (lambda: float(weights[t, t - offset].sum()), f"{call}: a mean, not a sum — divide by the number of queries that have a key {offset} back"),
                (lambda: float(weights[t, t - offset].sum() / seq), f"{call}: only the T − {offset} queries t ≥ {offset} have a key {offset} back: average over those"),
                (lambda: float(weights[t[1:], t[1:] - offset].mean()), f"{call}: start at query t = {offset}, the first with a key {offset} back"),
            ], close)
            raise Hint(f"{call} returned {got:.6g}, expected {expected:.6g}: the mean of weights[t, t − {offset}] over t = {offset} … {seq - 1}")

    return run_check("tm-ex-offset-code", offset_weight, body,
                     "offset_weight gives the mean weight on the key `offset` back for six fixed maps and a fresh random one.")
