"""The auto-checks of the exercises in the chapter "Implementations and speed" (book/implementations_and_speed.md)."""

from __future__ import annotations

import math

import torch

from .checking import CheckResult, Hint, answer_number, answer_or_none, call_student, diagnose_across, fresh_rng, run_check


def _bf16_offsets(n: int, dtype: torch.dtype = torch.bfloat16, *, nearest: bool = False) -> torch.Tensor:
    """position as built − true position for 0 … n−1 (float64, shape (n,)): built by an arange in `dtype`,
    or, with nearest=True, by rounding each exact integer to the nearest number of `dtype`."""
    exact = torch.arange(n, dtype=torch.float64)  # (n,)
    built = torch.arange(n).to(dtype) if nearest else torch.arange(n, dtype=dtype)  # (n,)
    return built.double() - exact


def _bf16_errors(n: int, dtype: torch.dtype = torch.bfloat16, *, nearest: bool = False) -> torch.Tensor:
    """|position as built − true position| for 0 … n−1: the distances `_bf16_offsets` measures."""
    return _bf16_offsets(n, dtype, nearest=nearest).abs()


def _significant_bits(dtype: torch.dtype) -> int:
    """Significant bits of a float type, the implicit leading one included: 8 for bf16, 11 for float16."""
    return round(-math.log2(torch.finfo(dtype).eps)) + 1


def check_bf16_position_error(bf16_position_error) -> CheckResult:
    """Exercise speed-ex-positions: `bf16_position_error(n)` is the largest |position − m| over m = 0 … n−1
    when the positions come from a bf16 `torch.arange(n, dtype=torch.bfloat16)` (on the CPU, in this torch).

    The answer may be a Python number, a NumPy number or a 0-dimensional tensor: the value counts, not its type.
    """
    fixed = (1, 200, 256, 257, 258, 1000, 2048, 4096, 5000, 8192)
    bits = {dtype: _significant_bits(dtype) for dtype in (torch.bfloat16, torch.float16)}

    def read(value, call: str, n: int) -> float:
        return answer_number(value, call, [((n,), f"{call} returned shape {(n,)}, one error per position; return only the largest, as one number")])

    def body(fn):
        fresh = fresh_rng()
        sizes = fixed + tuple(int(n) for n in fresh.integers(1, 20001, size=3))
        for n in sizes:
            call = f"bf16_position_error({n})"
            got = read(call_student(fn, call, n), call, n)
            expected = _bf16_errors(n).max().item()
            if abs(got - expected) < 1e-9:
                continue
            differ = torch.nonzero(_bf16_offsets(n) != _bf16_offsets(n, nearest=True)).flatten()
            where = f"they first differ at position {differ[0].item()}" if differ.numel() else "they differ"
            diagnose_across(got, n, sizes, lambda k: answer_or_none(lambda v: read(v, "", k), fn, k), [
                (lambda k: _bf16_errors(k, nearest=True).max().item(),
                 f"{call}: rounding — you rounded each exact position to the nearest bf16 number, which is not how a bf16 "
                 f"torch.arange builds them: {where}; look at the positions torch.arange({n}, dtype=torch.bfloat16) itself holds"),
                (lambda k: _bf16_errors(k)[-1].item(),
                 f"{call}: you returned the error of the last position, {n - 1}; the answer is the largest error over all positions 0 … {n - 1}"),
                (lambda k: _bf16_errors(k + 1).max().item(),
                 f"{call}: range — the positions are 0 … n−1, n of them; yours include position n = {n} too"),
                (lambda k: _bf16_offsets(k).max().item(),
                 f"{call}: distance — take the absolute value |built − true|; positions rounded down count as much as those rounded up"),
                (lambda k: (-_bf16_offsets(k)).max().item(),
                 f"{call}: distance — take the absolute value |built − true|; positions rounded up count as much as those rounded down"),
                (lambda k: _bf16_errors(k, torch.float16).max().item(),
                 f"{call}: dtype — that is the error of float16 positions ({bits[torch.float16]} significant bits); "
                 f"bf16 keeps only {bits[torch.bfloat16]}"),
            ], lambda a, b: abs(a - b) < 1e-9)
            if got == 0:
                raise Hint(f"{call}: your positions look exact; build them in bf16, which holds every integer only up to "
                            f"{2 ** bits[torch.bfloat16]}")
            raise Hint(f"{call}: the largest distance from the true positions is not {got:g}; compare the positions a bf16 "
                        f"torch.arange gives with 0 … {n - 1}")

    return run_check("speed-ex-positions", bf16_position_error, body,
                f"bf16_position_error matches a bf16 torch.arange for n from {fixed[0]} to {fixed[-1]} and for three fresh random n up to 20000.")
