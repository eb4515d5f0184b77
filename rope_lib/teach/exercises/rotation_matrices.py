"""The auto-checks of the exercises in the chapter "2D rotation matrices" (book/rotation_matrices.md)."""

from __future__ import annotations

import numpy as np

from ...rotation import rotation_matrix_2d
from ..language import Words
from .checking import CheckResult, Hint, allclose_within, answer_array, call_student, diagnose, mismatch, run_check, shown


def _plane_case(rng: np.random.Generator) -> tuple[np.ndarray, float]:
    """A random plane vector and angle, rounded so that the hint prints them exactly."""
    return np.round(rng.standard_normal(2), 3), round(float(rng.uniform(-10, 10)), 4)


def check_rotate(rotate, *, lang: str = "en") -> CheckResult:
    """Exercise rot-ex-complex-code: `rotate(vec, angle)` turns a plane vector counter-clockwise by angle radians."""

    def body(fn):
        rng = np.random.default_rng(3)
        close = allclose_within(1e-9)
        trials = [(np.array([1.0, 0.0]), np.pi / 2), (np.array([0.0, 2.0]), np.pi / 3)]
        trials += [_plane_case(rng) for _ in range(25)]
        for vec, angle in trials:
            call = f"rotate({vec.tolist()}, {angle!r})"
            value = call_student(fn, call, vec, angle)
            if isinstance(value, complex):
                raise Hint(f"{call} returned the complex number {shown(value)}; return the plane vector (x, y), e.g. an array of its real and imaginary parts",
                           f"{call} 返回了复数 {shown(value)}；请返回平面向量 (x, y)，例如由它的实部和虚部组成的数组")
            got = answer_array(value, call, (2,))
            expected = rotation_matrix_2d(angle) @ vec
            if close(got, expected):
                continue
            diagnose(got, [
                (lambda: rotation_matrix_2d(-angle) @ vec,
                 Words(f"{call}: direction — a positive angle turns counter-clockwise: (1, 0) by π/2 gives (0, 1)",
                       f"{call}：方向反了——正角度是逆时针转：(1, 0) 转 π/2 得到 (0, 1)")),
                (lambda: rotation_matrix_2d(np.radians(angle)) @ vec,
                 Words(f"{call}: units — angle is in radians, not degrees", f"{call}：单位不对——angle 的单位是弧度，不是度")),
            ], close)
            if not np.isclose(np.linalg.norm(got), np.linalg.norm(vec)):
                raise Hint(f"{call}: a rotation keeps lengths, but |result| = {np.linalg.norm(got):.4g} and |vec| = {np.linalg.norm(vec):.4g}",
                           f"{call}：旋转不改变长度，但 |result| = {np.linalg.norm(got):.4g}，而 |vec| = {np.linalg.norm(vec):.4g}")
            raise mismatch(call, got, expected, Words("R(angle)·vec", "R(angle)·vec"))

    success = Words("rotate matches rope_lib.rotation.rotation_matrix_2d on 27 vectors and angles, 25 of them seeded random ones.",
                    "rotate 在 27 组向量和角度上（其中 25 组是固定种子的随机输入）都与 rope_lib.rotation.rotation_matrix_2d 一致。")
    return run_check("rot-ex-complex-code", rotate, body, success, lang)
