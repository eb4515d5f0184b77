"""The auto-checks of the exercises in the chapter "RoPE for images and video" (book/rope_for_images.md)."""

from __future__ import annotations

import numpy as np
import torch

from ...axial import axial_freqs_2d
from ...multi_axis import apply_multi_axis_rope
from ..language import Words, require_language
from .checking import CheckResult, Hint, allclose_within, answer_array, call_student, diagnose, mismatch, run_check

AXIAL_EXERCISE_BASE = 100.0
"""The base the exercise asks for: Heo et al.'s, for ViTs."""


def _axial(x: np.ndarray, h: int, w: int, *, freqs=None, layout: str = "interleaved") -> np.ndarray:
    """x turned to patch (h, w) by axial RoPE (shared frequencies, base 100) or by the given frequency vectors."""
    table = axial_freqs_2d(x.size, AXIAL_EXERCISE_BASE) if freqs is None else freqs
    turned = apply_multi_axis_rope(torch.from_numpy(x)[None, None, None], [[h, w]], table, layout=layout)
    return turned[0, 0, 0].numpy()


def check_axial_rotate(axial_rotate, *, lang: str = "en") -> CheckResult:
    """Exercise img-ex-axial-code: `axial_rotate(x, h, w)` turns a head vector x (d values, d a multiple of 4) to the
    patch at row h, column w: pairs (x_2i, x_2i+1) for i < d/4 by h·θ_i, the others by w·θ_(i−d/4), θ_i = 100^(−4i/d)."""
    require_language(lang)

    def body(fn):
        rng = np.random.default_rng(11)
        close = allclose_within(1e-9)
        cases = [(np.ones(4), 1, 0), (np.ones(4), 0, 1), (np.round(rng.standard_normal(8), 3), 2, 5)]
        cases += [(np.round(rng.standard_normal(d), 3), int(rng.integers(0, 16)), int(rng.integers(0, 16))) for d in (8, 16, 32)]
        d = int(rng.choice([8, 16, 24]))
        cases.append((np.round(rng.standard_normal(d), 3), int(rng.integers(0, 30)), int(rng.integers(0, 30))))
        for x, h, w in cases:
            call = f"axial_rotate({x.tolist()}, {h}, {w})"
            got = answer_array(call_student(fn, call, x, h, w), call, x.shape)
            expected = _axial(x, h, w)
            if close(got, expected):
                continue
            d = x.size
            diagnose(got, [
                (lambda: _axial(x, w, h), Words(f"{call}: axes — the first d/4 pairs turn with the row h, the last d/4 with the column w",
                                             f"{call}：轴弄反了——前 d/4 个维度对随行 h 转动，后 d/4 个随列 w 转动")),
                (lambda: _axial(x, h, w, freqs=axial_freqs_2d(d, AXIAL_EXERCISE_BASE, split="alternating")),
                 Words(f"{call}: frequencies — each axis gets the same d/4 frequencies 100^(−4i/d), not alternate ones of the d/2 of 1D RoPE",
                       f"{call}：频率不对——两个轴用的是同一组 d/4 个频率 100^(−4i/d)，而不是从一维 RoPE 的 d/2 个频率中隔一个取一个")),
                (lambda: _axial(x, h, w, freqs=axial_freqs_2d(d, AXIAL_EXERCISE_BASE) ** 0.5),
                 Words(f"{call}: frequencies — a head of d values hands d/4 pairs to each axis, so θ_i = 100^(−4i/d), not 100^(−2i/d)",
                       f"{call}：频率不对——d 维的头给每个轴分 d/4 个维度对，所以 θ_i = 100^(−4i/d)，而不是 100^(−2i/d)")),
                (lambda: _axial(x, h, w, layout="half"),
                 Words(f"{call}: pairing — pair i is (x_2i, x_2i+1), adjacent coordinates, not (x_i, x_(i+d/2))",
                       f"{call}：配对不对——第 i 对是相邻的两个坐标 (x_2i, x_2i+1)，而不是 (x_i, x_(i+d/2))")),
                (lambda: _axial(x, -h, -w), Words(f"{call}: direction — each pair turns counter-clockwise by +h·θ_i or +w·θ_i",
                                              f"{call}：方向反了——每个维度对按逆时针转过 +h·θ_i 或 +w·θ_i")),
                (lambda: _axial(x, h, 0), Words(f"{call}: the column — the last d/4 pairs must turn with w", f"{call}：列——后 d/4 个维度对必须随 w 转动")),
                (lambda: _axial(x, 0, w), Words(f"{call}: the row — the first d/4 pairs must turn with h", f"{call}：行——前 d/4 个维度对必须随 h 转动")),
            ], close)
            if not np.isclose(np.linalg.norm(got), np.linalg.norm(x)):
                raise Hint(f"{call}: a rotation keeps the vector's length, but |result| = {np.linalg.norm(got):.4g} and |x| = {np.linalg.norm(x):.4g}",
                           f"{call}：旋转不改变向量的长度，但 |结果| = {np.linalg.norm(got):.4g}，而 |x| = {np.linalg.norm(x):.4g}")
            raise mismatch(call, got, expected, Words(f"x turned to patch ({h}, {w})", f"x 转到图像块 ({h}, {w}) 后的向量"))

    return run_check("img-ex-axial-code", axial_rotate, body,
                     Words("axial_rotate turns head vectors of 4 to 32 values to their patch, for seven patches, four of them seeded random ones.",
                           "axial_rotate 能把 4 到 32 维的头向量转到对应的图像块：七个图像块（其中四个由固定种子随机生成）都通过。"), lang)
