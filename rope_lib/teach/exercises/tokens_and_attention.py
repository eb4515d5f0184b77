"""The auto-checks of the exercises in the chapter "Tokens and attention" (book/tokens_and_attention.md)."""

from __future__ import annotations

import numpy as np

from ..tokens import attention_outputs, build_vocab, embed, embedding_table, projection, self_attention, softmax, token_ids, tokenize
from ..language import Words, require_language, text
from .checking import CheckResult, allclose_within, answer_array, call_student, case_seed, diagnose, mismatch, run_check


def check_attention_by_hand(attention_by_hand, *, lang: str = "en") -> CheckResult:
    """Exercise tok-ex-loop: `attention_by_hand(x, w_q, w_k, w_v)` returns the outputs o_m of one head, shape (N, d_v)."""

    require_language(lang)

    def body(fn):
        rose = tokenize("A rose is a rose is a rose.")
        sentence = embed(token_ids(rose, build_vocab(rose)), embedding_table(len(build_vocab(rose)), 8, seed=3))
        cases = [
            (text(lang, en="the sentence 'A rose is a rose is a rose.' (N = 9, d = 8, d_v = 8)",
                  zh="句子 'A rose is a rose is a rose.'（N = 9，d = 8，d_v = 8）"), sentence,
             projection(8, 8, seed=1), projection(8, 8, seed=2), projection(8, 8, seed=4)),
            (text(lang, en="random x with N = 4, d = 6, d_k = 4, d_v = 3", zh="随机的 x，N = 4，d = 6，d_k = 4，d_v = 3"), np.random.default_rng(1).standard_normal((4, 6)),
             projection(6, 4, seed=5), projection(6, 4, seed=6), projection(6, 3, seed=7)),
        ]
        rng = np.random.default_rng(2)
        n_tok, d, d_k, d_v = (int(v) for v in rng.integers(2, 7, size=4))
        seed = case_seed(rng)
        sizes = {"x": (d, n_tok), "w_q": (d, d_k), "w_k": (d, d_k), "w_v": (d, d_v)}
        made = {name: projection(d_in, d_out, seed=seed + j) for j, (name, (d_in, d_out)) in enumerate(sizes.items())}
        cases.append(("x, w_q, w_k, w_v = " + ", ".join(f"teach.projection({a}, {b}, seed={seed + j})" for j, (a, b) in enumerate(sizes.values())),
                      *made.values()))
        close = allclose_within(1e-9)
        for name, x, w_q, w_k, w_v in cases:
            call = text(lang, en=f"attention_by_hand on {name}", zh=f"attention_by_hand 在{name}上")
            expected, weights = self_attention(x, w_q, w_k, w_v)
            got = answer_array(call_student(fn, call, x, w_q, w_k, w_v), call, expected.shape)
            if close(got, expected):
                continue
            q, k, v = x @ w_q.T, x @ w_k.T, x @ w_v.T
            diagnose(got, [
                (lambda: attention_outputs(softmax(q @ k.T), v),
                 Words(f"{call}: scaling — divide each score q_m·k_n by √d_k (d_k = {w_q.shape[0]}) before the softmax",
                       f"{call}：缩放——在 softmax 之前，要把每个得分 q_m·k_n 除以 √d_k（d_k = {w_q.shape[0]}）")),
                (lambda: attention_outputs(softmax(q @ k.T / w_q.shape[0]), v),
                 Words(f"{call}: scaling — the scores are divided by √d_k, not by d_k",
                       f"{call}：缩放——得分要除以 √d_k，而不是 d_k")),
                (lambda: attention_outputs(softmax((q @ k.T / np.sqrt(w_q.shape[0])).T).T, v),
                 Words(f"{call}: normalisation — each query's weights a_(m,n) must sum to 1 over the keys n, not over the queries",
                       f"{call}：归一化——每个查询的权重 a_(m,n) 应当对键 n 求和为 1，而不是对查询求和")),
                (lambda: attention_outputs(weights.T, v),
                 Words(f"{call}: indices — o_m sums a_(m,n)·v_n over n; your sum runs over the wrong index of a",
                       f"{call}：下标——o_m 是 a_(m,n)·v_n 对 n 求和；你的求和用错了 a 的下标")),
            ], close)
            row = int(np.abs(got - expected).max(axis=1).argmax())
            raise mismatch(call, got, expected, Words("the values weighted by softmax(q·k/√d_k)", "按 softmax(q·k/√d_k) 加权的值"),
                           Words(f"look at output o_{row} (token {row}) first", f"先看输出 o_{row}（第 {row} 个词元）"))

    return run_check("tok-ex-loop", attention_by_hand, body,
                     Words("attention_by_hand matches rope_lib.self_attention on the rose sentence, on a rectangular head and on a seeded random head.",
                           "attention_by_hand 在 rose 句子、一个非方阵的注意力头和一个固定种子的随机注意力头上，都与 rope_lib.self_attention 一致。"),
                     lang)
