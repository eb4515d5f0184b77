"""The auto-checks of the exercises in the chapter "The implementation in LLaMA" (book/llama_implementation.md)."""

from __future__ import annotations

import torch

from ...rope import apply_rope, rope_cos_sin, rotate_pairs
from .checking import CheckResult, Hint, answer_tensor, call_student, diagnose, fresh_heads, fresh_rng, run_check



def check_rope_half(rope_half) -> CheckResult:
    """Exercise llama-ex-rotate-half: `rope_half(x, positions)` applies RoPE in the half layout to x (B, T, H, D)."""

    def body(fn):
        gen, fresh = torch.Generator().manual_seed(0), fresh_rng()
        cases = []
        for shape, start in (((2, 9, 3, 32), 50), ((1, 4, 2, 8), 0), ((1, 5, 1, 16), 1000)):
            x = torch.randn(*shape, generator=gen, dtype=torch.float64)  # (B, T, H, D)
            cases.append((x, start, f"rope_half(x of shape {shape}, positions {start}…{start + shape[1] - 1})"))
        for _ in range(2):
            x, start, rebuild = fresh_heads(fresh, 32)
            cases.append((x, start, f"rope_half(x, positions=torch.arange({start}, {start + x.shape[1]})) with x = {rebuild}"))
        close = lambda a, b: torch.allclose(a, b, rtol=0, atol=1e-9)  # noqa: E731
        for x, start, call in cases:
            positions = torch.arange(start, start + x.shape[1])  # (T,)
            value = answer_tensor(call_student(fn, call, x.clone(), positions.clone()), call, x, "one rotated vector per head", "x's")
            expected = apply_rope(x, positions, layout="half")
            if close(value, expected):
                continue
            cos, sin = rope_cos_sin(positions, x.shape[-1], dtype=torch.float64)  # (T, D/2)
            in_bf16 = positions.to(torch.bfloat16).long()  # (T,): what bf16 makes of the positions
            moved = int((in_bf16 != positions).long().argmax())
            diagnose(value, [
                (lambda: apply_rope(x, positions),
                 f"{call}: pairing — you paired neighbours (x_2i, x_2i+1), the interleaved layout; the half layout pairs x_i with x_(i+D/2)"),
                (lambda: apply_rope(x, torch.arange(x.shape[1]), layout="half"),
                 f"{call}: positions — your vectors are turned to positions 0…T−1; use the positions passed in (offset by start_pos = {start})"),
                (lambda: rotate_pairs(x, sin, cos, layout="half"),
                 f"{call}: cos and sin swapped — x⊗cos + rotate_half(x)⊗sin; at position 0 nothing may move"),
                (lambda: apply_rope(x, -positions, layout="half"),
                 f"{call}: direction — rotate_half must map (x1, x2) to (−x2, x1); yours turns the other way"),
                (lambda: apply_rope(x, in_bf16, layout="half"),
                 f"{call}: positions — they were rounded to bf16 before the angles were computed (position {positions[moved].item()} "
                 f"became {in_bf16[moved].item()}); keep the integer positions and compute the angles from them in float64, as rope_cos_sin does"),
            ], close)
            if start == 0 and not close(value[:, :1], x[:, :1]):
                raise Hint(f"{call}: the token at position 0 must come back unchanged")
            raise Hint(f"{call}: the result differs from RoPE in the half layout by {(value - expected).abs().max().item():.3g}")

    return run_check("llama-ex-rotate-half", rope_half, body,
                "rope_half matches rope_lib.apply_rope(x, positions, layout='half') for three shapes and offsets 0, 50 and 1000 and two fresh random ones.")
