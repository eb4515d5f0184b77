"""The auto-checks of the exercises in the chapter "RoPE in a trained model" (book/trained_models.md)."""

from __future__ import annotations

import numpy as np

from ..shared.checking import CheckResult, answer_number, call_student, diagnose, mismatch, run_check
from ..shared.language import Words, require_language, text
from .attention_probe import offset_scores


def _causal_map(seq: int, rng: np.random.Generator) -> np.ndarray:
    """A random (T, T) attention map: each row t a softmax over keys 0 … t, zero past t."""
    scores = rng.standard_normal((seq, seq)) * 2
    scores[np.triu_indices(seq, 1)] = -np.inf
    weights = np.exp(scores - scores.max(axis=1, keepdims=True))
    return weights / weights.sum(axis=1, keepdims=True)


def _offset_weight(weights: np.ndarray, offset: int) -> float:
    """The probe's s(o) for one head: rope_lib's `offset_scores` on the map as a batch of one."""
    return float(offset_scores(weights[None, None, None], max_offset=offset)[0, 0, offset - 1])


def check_offset_weight(offset_weight, *, lang: str = "en") -> CheckResult:
    """Exercise tm-ex-offset-code: `offset_weight(weights, offset)` is the mean, over the queries t ≥ offset, of one
    head's weight a_(t, t−offset) on the key `offset` positions back, for a (T, T) map of a causal head."""

    require_language(lang)

    def body(fn):
        rng = np.random.default_rng(17)
        cases = [(np.tril(np.ones((4, 4))) / np.arange(1, 5)[:, None], 1), (np.eye(6, k=-2) + np.eye(6)[:, [0]] * (np.arange(6) < 2)[:, None], 2)]
        cases += [(_causal_map(seq, rng), offset) for seq, offset in ((8, 1), (8, 3), (12, 5), (16, 8), (19, 4))]
        close = lambda a, b: bool(np.isclose(a, b, rtol=0, atol=1e-9))  # noqa: E731
        for weights, offset in cases:
            seq = len(weights)
            call = text(lang, en=f"offset_weight(<a {seq}×{seq} map>, {offset})", zh=f"offset_weight(<一个 {seq}×{seq} 的注意力图>, {offset})")
            got = answer_number(call_student(fn, call, weights, offset), call)
            expected = _offset_weight(weights, offset)
            if close(got, expected):
                continue
            t = np.arange(offset, seq)
            diagnose(got, [
                (lambda: float(np.diagonal(weights, offset).mean()),
                 Words(f"{call}: direction — rows are queries and columns keys, so the key {offset} back of query t is column "
                       f"t − {offset}, below the main diagonal, not above it, where a causal map is zero",
                       f"{call}：方向——行是查询、列是键，所以查询 t 往前 {offset} 个位置的键在第 t − {offset} 列，"
                       f"位于主对角线下方，而不是上方（因果注意力图在上方全为零）")),
                (lambda: float(weights[t, t - offset].sum()),
                 Words(f"{call}: a mean, not a sum — divide by the number of queries that have a key {offset} back",
                       f"{call}：要的是均值，不是总和——请除以往前 {offset} 个位置有键的查询个数")),
                (lambda: float(weights[t, t - offset].sum() / seq),
                 Words(f"{call}: only the T − {offset} queries t ≥ {offset} have a key {offset} back: average over those",
                       f"{call}：只有 t ≥ {offset} 的 T − {offset} 个查询往前 {offset} 个位置有键：请只对这些查询取平均")),
                (lambda: float(weights[t[1:], t[1:] - offset].mean()),
                 Words(f"{call}: start at query t = {offset}, the first with a key {offset} back",
                       f"{call}：请从查询 t = {offset} 开始，它是第一个往前 {offset} 个位置有键的查询")),
            ], close)
            raise mismatch(call, got, expected, Words(f"the mean of weights[t, t − {offset}] over t = {offset} … {seq - 1}",
                                                      f"weights[t, t − {offset}] 在 t = {offset} … {seq - 1} 上的均值"))

    return run_check("tm-ex-offset-code", offset_weight, body,
                     Words("offset_weight gives the mean weight on the key `offset` back for seven maps, five of them seeded random ones.",
                           "offset_weight 在七个注意力图（其中五个由固定种子随机生成）上，都给出了往前 `offset` 个位置的键上的平均权重。"),
                     lang)
