"""The auto-checks of the exercises in the chapter "RoPE in two dimensions" (book/rope_2d.md)."""

from __future__ import annotations

import numpy as np

from ...rotation import rotation_matrix_2d
from ..language import Words, require_language
from .checking import CheckResult, Hint, answer_array, answer_number, call_student, diagnose, mismatch, run_check


def _score_case(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, int, int, float]:
    """Random q, k, m, n and θ for the 2D score, rounded so that the hint prints them exactly."""
    q, k = np.round(rng.standard_normal(2), 3), np.round(rng.standard_normal(2), 3)
    m, n = (int(v) for v in rng.integers(0, 5000, size=2))
    return q, k, m, n, round(float(rng.uniform(-3, 3)), 4)


def check_score_complex(score_complex, *, lang: str = "en") -> CheckResult:
    """Exercise rope2d-ex-code: `score_complex(q, k, m, n, theta)` = Re[q k* e^(i(m−n)θ)], the 2D RoPE score."""
    require_language(lang)

    def body(fn):
        rng = np.random.default_rng(5)
        close = lambda a, b: np.isclose(a, b, rtol=0, atol=1e-9)  # noqa: E731
        for q, k, m, n, theta in [_score_case(rng) for _ in range(200)]:
            call = f"score_complex(q={q.tolist()}, k={k.tolist()}, m={m}, n={n}, theta={theta!r})"
            value = call_student(fn, call, q, k, m, n, theta)
            if isinstance(value, complex) and value.imag != 0:
                raise Hint(f"{call} returned a complex number; the score is the real part (eq. rope2d-solution)",
                           f"{call} 返回了复数；得分是实部（式 rope2d-solution）")
            got = answer_number(value, call)
            expected = (rotation_matrix_2d(m * theta) @ q) @ (rotation_matrix_2d(n * theta) @ k)
            if close(got, expected):
                continue
            zq, zk = complex(*q), complex(*k)
            diagnose(got, [
                (lambda: (zq * zk.conjugate() * np.exp(1j * (n - m) * theta)).real,
                 Words(f"{call}: sign — your score at (m, n) is the true score at (n, m): the angle is (m − n)θ, not (n − m)θ",
                       f"{call}：符号错了——你在 (m, n) 处的得分其实是 (n, m) 处的正确得分：角度是 (m − n)θ，不是 (n − m)θ")),
                (lambda: (zq * zk * np.exp(1j * (m - n) * theta)).real,
                 Words(f"{call}: conjugate — the key enters as its conjugate k*, as in ⟨a, b⟩ = Re[a b*]",
                       f"{call}：共轭——键要取共轭 k* 再参与运算，正如 ⟨a, b⟩ = Re[a b*]")),
                (lambda: (zq * zk.conjugate() * np.exp(1j * (m + n) * theta)).real,
                 Words(f"{call}: the score must depend on m − n only; yours depends on m + n",
                       f"{call}：得分只能依赖 m − n；你的结果依赖 m + n")),
                (lambda: abs(zq * zk.conjugate() * np.exp(1j * (m - n) * theta)),
                 Words(f"{call}: take the real part, not the modulus", f"{call}：要取实部，而不是模")),
            ], close)
            raise mismatch(call, got, expected, Words("the dot product of q turned by mθ and k turned by nθ", "q 转过 mθ 与 k 转过 nθ 之后的点积"))

    return run_check("rope2d-ex-code", score_complex, body,
                     Words("score_complex matches the rotation-matrix score on 200 seeded random queries, keys and positions.",
                           "score_complex 在 200 组随机的查询、键和位置（固定种子）上，都与旋转矩阵算出的得分一致。"), lang)


def _rule_case(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, int, int, int]:
    """Random q, k (rounded so that a hint prints them exactly), positions m, n and a shift s of both."""
    q, k = np.round(rng.standard_normal(2), 3), np.round(rng.standard_normal(2), 3)
    m, n, s = (int(v) for v in rng.integers(0, 30, size=3))
    return q, k, m, n, s


def check_real_goal_rule(real_goal_rule, *, lang: str = "en") -> CheckResult:
    """Exercise rope2d-ex-real-goal: `real_goal_rule(q, k, m, n)` returns (f_q, f_k), two plane vectors, by a rule that leaves
    position 0 alone, whose dot product depends on m − n only (the real goal, RoFormer eq. 11), whose query length
    changes with its position, and whose complex product f_q f_k* does not depend on m − n only (so the complex goal,
    assumption 1 of the chapter, rules it out)."""
    require_language(lang)

    def body(fn):
        rng = np.random.default_rng(11)
        close = lambda a, b: bool(np.isclose(a, b, rtol=1e-9, atol=1e-9))  # noqa: E731
        length_changes = complex_moves = False
        for q, k, m, n, s in [_rule_case(rng) for _ in range(60)]:
            def encoded(m_, n_):
                call = f"real_goal_rule(q={q.tolist()}, k={k.tolist()}, m={m_}, n={n_})"
                value = call_student(fn, call, q.copy(), k.copy(), m_, n_)
                if value is None:
                    raise Hint(f"{call} returned None: return the result, (f_q, f_k) (is a return statement missing?)",
                               f"{call} 返回了 None：请返回结果 (f_q, f_k)（是不是少了 return 语句？）")
                if not isinstance(value, (tuple, list)) or len(value) != 2:
                    raise Hint(f"{call} must return two plane vectors, (f_q, f_k); got {type(value).__name__}",
                               f"{call} 应返回两个平面向量 (f_q, f_k)；得到的是 {type(value).__name__}")
                return call, answer_array(value[0], call + "[0]", (2,)), answer_array(value[1], call + "[1]", (2,))
            call, f_q, f_k = encoded(0, 0)
            if not (np.allclose(f_q, q, rtol=0, atol=1e-12) and np.allclose(f_k, k, rtol=0, atol=1e-12)):
                raise Hint(f"{call} should return q and k unchanged: position 0 changes nothing (assumption 2)",
                           f"{call} 应原样返回 q 和 k：位置 0 什么都不改变（假设 2）")
            call, f_q, f_k = encoded(m, n)
            shifted, g_q, g_k = encoded(m + s, n + s)
            if not close(f_q @ f_k, g_q @ g_k):
                raise Hint(f"{call} and {shifted} give different dot products, though m − n is the same: the real goal fails",
                           f"{call} 与 {shifted} 的 m − n 相同，点积却不同：实数形式的目标不成立")
            length_changes |= not close(np.linalg.norm(f_q), np.linalg.norm(q))
            complex_moves |= not close(complex(*f_q) * complex(*f_k).conjugate(), complex(*g_q) * complex(*g_k).conjugate())
        if not length_changes:
            raise Hint("your query keeps its length at every position, as RoPE's does; the exercise asks for a rule that changes it",
                       "你的查询在每个位置都保持长度，和 RoPE 一样；本题要的是一个会改变查询长度的规则")
        if not complex_moves:
            raise Hint("your rule meets the complex goal too (f_q f_k* depends on m − n only), as xPos's growth does; look for one "
                       "that meets only the real goal: stretch one coordinate and shrink the other",
                       "你的规则连复数形式的目标也满足（f_q f_k* 只依赖 m − n），就像 xPos 的增长那样；请找一个只满足实数目标的规则："
                       "把一个坐标拉长，另一个缩短")

    return run_check("rope2d-ex-real-goal", real_goal_rule, body,
                     Words("on 60 seeded random queries, keys and positions your rule leaves position 0 alone, its dot product "
                           "depends on m − n only and its query length changes with position, yet its complex product does not "
                           "depend on m − n only: the real goal alone does not force RoPE.",
                           "在 60 组随机的查询、键和位置（固定种子）上，你的规则不改变位置 0，点积只依赖 m − n，查询长度随位置变化，"
                           "而复数乘积却不只依赖 m − n：单凭实数形式的目标推不出 RoPE。"), lang)
