"""Argument checks shared by the library: every failure names the argument and
what was expected, so bad input never gets silently truncated, broadcast or cast."""

from __future__ import annotations

import numbers

import torch

LAYOUTS = ("interleaved", "half")
"""Pairing conventions: Meta pairs (2i, 2i+1); Hugging Face pairs (i, i + D/2)."""

FLOAT_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)


def check_even_dim(dim, name: str = "dim") -> int:
    """A rotary dimension must be a positive even integer: coordinates rotate in pairs."""
    if isinstance(dim, bool) or not isinstance(dim, numbers.Integral):
        raise TypeError(f"{name} must be an int, got {type(dim).__name__}")
    if dim <= 0 or dim % 2:
        raise ValueError(f"{name} must be a positive even integer (coordinates rotate in pairs), got {dim}")
    return int(dim)


def check_positive_int(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if value <= 0:
        raise ValueError(f"{name} must be a positive integer, got {value}")
    return int(value)


def check_base(theta, name: str = "theta") -> float:
    """The RoPE base (10000 in RoFormer and LLaMA 1/2, 500000 in Llama 3)."""
    if isinstance(theta, bool) or not isinstance(theta, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(theta).__name__}")
    if not theta > 1.0:
        raise ValueError(f"{name} must be greater than 1 so that the frequencies decrease, got {theta}")
    return float(theta)


def check_layout(layout) -> str:
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {LAYOUTS}, got {layout!r}")
    return layout


def check_float_tensor(x, name: str) -> torch.Tensor:
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(x).__name__}")
    if x.dtype not in FLOAT_DTYPES:
        raise TypeError(f"{name} must have a floating dtype {FLOAT_DTYPES}, got {x.dtype}")
    return x


def check_bthd(x, name: str) -> torch.Tensor:
    """A (B, T, H, D) activation with an even head dimension D."""
    check_float_tensor(x, name)
    if x.dim() != 4:
        raise ValueError(f"{name} must have shape (B, T, H, D), got {x.dim()} dimensions {tuple(x.shape)}")
    if x.shape[-1] % 2:
        raise ValueError(f"{name} must have an even head dimension D (coordinates rotate in pairs), got D={x.shape[-1]}")
    return x


def as_positions(positions, device: torch.device | None = None, name: str = "positions") -> torch.Tensor:
    """Integer positions as an int64 tensor; floats are refused, not rounded."""
    if isinstance(positions, torch.Tensor):
        if positions.dtype.is_floating_point or positions.dtype.is_complex or positions.dtype == torch.bool:
            raise TypeError(f"{name} must hold integers (token indices), got dtype {positions.dtype}")
        if device is not None and positions.device != torch.device(device):
            raise ValueError(f"{name} must be on device {device} like the input, got {positions.device}")
        return positions.to(torch.int64)
    if isinstance(positions, range):
        positions = list(positions)
    if isinstance(positions, (list, tuple)):
        if not all(isinstance(p, numbers.Integral) and not isinstance(p, bool) for p in _flatten(positions)):
            raise TypeError(f"{name} must hold integers (token indices), got {positions!r:.80}")
        return torch.as_tensor(positions, dtype=torch.int64, device=device)
    raise TypeError(f"{name} must be an integer tensor, a range or a list of ints, got {type(positions).__name__}")


def _flatten(items):
    for item in items:
        if isinstance(item, (list, tuple)):
            yield from _flatten(item)
        else:
            yield item
