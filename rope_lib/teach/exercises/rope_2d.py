"""The auto-checks of the exercises in the chapter "RoPE in two dimensions" (book/rope_2d.md)."""

from __future__ import annotations

import numpy as np

from ...rotation import rotation_matrix_2d
from ..language import Words, require_language
from .checking import CheckResult, Hint, answer_number, call_student, diagnose, mismatch, run_check


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
