"""Argument checks (private). `checked_by` runs a public function's checks before every call, wherever it comes
from; `require_*` raises on a bad argument, naming it and what was expected. A check only looks: it never converts
or replaces an argument. Each module keeps the checks of its own functions beside them; these are the shared ones.
(`check_*` is the exercise checks' verb, in `rope_lib.teach.exercises`: they report to a student, not raise.)
"""

from __future__ import annotations

import functools
import inspect
import math
import numbers
from types import MappingProxyType

import numpy as np
import torch

LAYOUTS = ("interleaved", "half")
"""Pairing conventions: Meta's LLaMA pairs (2i, 2i+1); Hugging Face pairs (i, i + D/2)."""

FLOAT_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)
"""The dtypes activations, weights and cos/sin tables may have."""


def checked_by(*checks):
    """Decorate a public function with checks, each called with the call's arguments by name (defaults applied), in
    a read-only mapping: a check cannot replace an argument."""

    def decorate(function):
        signature = inspect.signature(function)

        @functools.wraps(function)
        def checked(*args, **kwargs):
            try:
                bound = signature.bind(*args, **kwargs)
            except TypeError as error:  # "missing a required argument: 'layout'", said by the function's name
                raise TypeError(f"{function.__qualname__}(): {error}") from None
            bound.apply_defaults()
            for check in checks:
                check(MappingProxyType(bound.arguments))
            return function(*args, **kwargs)

        return checked

    return decorate


def arguments(**requirements):
    """The check of arguments one by one: name=require runs require(a[name], name); a tuple runs each in turn."""

    def check(a):
        for name, requires in requirements.items():
            for require in requires if isinstance(requires, tuple) else (requires,):
                require(a[name], name)

    return check


def optional(require):
    """`require` for an argument that may also be None."""
    return lambda value, name: value is None or require(value, name)


def compute_dtype(dtype: torch.dtype) -> torch.dtype:
    """The dtype rotations are computed in: float64 for float64 inputs, float32 for the rest."""
    return torch.float64 if dtype == torch.float64 else torch.float32


def refuse(name: str, expected: str, got, error: type[Exception] = ValueError):
    """Raise error("<name> must <expected>, got <got>"): the form of every message."""
    raise error(f"{name} must {expected}, got {got}")


# Each require_* returns the value it accepted (an int as int, a real as float) for a check to go on from.


def require_int(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        refuse(name, "be an int", f"{type(value).__name__} {value!r:.60}", TypeError)
    return int(value)


def require_positive_int(value, name: str) -> int:
    if require_int(value, name) <= 0:
        refuse(name, "be a positive integer", value)
    return int(value)


def require_non_negative_int(value, name: str) -> int:
    if require_int(value, name) < 0:
        refuse(name, "be a non-negative integer", value)
    return int(value)


def require_even_dim(d, name: str = "d") -> int:
    if require_int(d, name) <= 0 or d % 2:
        refuse(name, "be a positive even integer (coordinates rotate in pairs)", d)
    return int(d)


def require_ntk_dim(d: int, name: str = "d") -> int:
    if d < 4:
        refuse(name, "be at least 4 for the NTK-aware exponent d/(d−2)", d)
    return d


def require_real(value, name: str) -> float:
    """A finite real number: bools, strings, NaN and infinities are refused."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        refuse(name, "be a finite real number", repr(value), TypeError)
    return float(value)


def require_positive_real(value, name: str, *, or_none: bool = False) -> float | None:
    if or_none and value is None:
        return None
    if require_real(value, name) <= 0:
        refuse(name, "be greater than 0" + " (or None)" * or_none, value)
    return float(value)


def require_factor(factor, name: str = "factor") -> float:
    if require_real(factor, name) < 1:
        refuse(name, "be at least 1 (the new context over the trained one)", factor)
    return float(factor)


def require_bool(value, name: str) -> bool:
    if not isinstance(value, bool):  # "no" is truthy, not False
        refuse(name, "be True or False", repr(value), TypeError)
    return value


def require_base(base, name: str = "base") -> float:
    """The RoPE base (10000 in RoFormer and LLaMA 1/2, 500000 in Llama 3)."""
    if isinstance(base, bool) or not isinstance(base, numbers.Real):
        refuse(name, "be a real number", type(base).__name__, TypeError)
    if not (base > 1 and math.isfinite(base)):
        refuse(name, "be a finite number greater than 1 so that the frequencies decrease", base)
    return float(base)


def require_layout(layout, name: str = "layout") -> str:
    if not isinstance(layout, str) or layout not in LAYOUTS:
        refuse(name, f"be one of {LAYOUTS}", f"{layout!r}: 'interleaved' pairs coordinates (2i, 2i+1), as Meta's "
               "LLaMA does; 'half' pairs (i, i + D/2), as Hugging Face does")
    return layout


def require_float_dtype(dtype, name: str = "dtype") -> torch.dtype:
    if not isinstance(dtype, torch.dtype):
        refuse(name, f"be a torch.dtype, one of {FLOAT_DTYPES}", f"{type(dtype).__name__} {dtype!r}", TypeError)
    if dtype not in FLOAT_DTYPES:
        refuse(name, f"be a floating dtype, one of {FLOAT_DTYPES}", dtype, TypeError)
    return dtype


def require_device(device, name: str = "device") -> torch.device:
    """A device torch can place tensors on here: a CUDA device needs a visible GPU."""
    try:
        device = torch.device(device)
    except (RuntimeError, TypeError) as error:
        raise ValueError(f"{name} must be a torch.device or a device string such as 'cpu' or 'cuda', got {device!r}") from error
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"{name} is {str(device)!r}, but no CUDA device is visible; pass device='cpu' or None")
    if device.type == "cuda" and device.index is not None and device.index >= torch.cuda.device_count():
        raise ValueError(f"{name} is {str(device)!r}, but only {torch.cuda.device_count()} CUDA devices are visible")
    return device


def require_float_tensor(x, name: str) -> torch.Tensor:
    if not isinstance(x, torch.Tensor):
        refuse(name, "be a torch.Tensor", type(x).__name__, TypeError)
    if x.dtype not in FLOAT_DTYPES:
        refuse(name, f"have a floating dtype {FLOAT_DTYPES}", x.dtype, TypeError)
    return x


def require_bthd(x, name: str) -> torch.Tensor:
    if require_float_tensor(x, name).dim() != 4:
        refuse(name, "have shape (B, T, H, D)", f"{x.dim()} dimensions {tuple(x.shape)}")
    if x.shape[-1] % 2:
        refuse(name, "have an even head dimension D (coordinates rotate in pairs)", f"D={x.shape[-1]}")
    return x


def require_rotary_dim(rotary_dim, head_dim: int) -> int:
    """How many leading coordinates of a head rotate: None means all head_dim of them."""
    if rotary_dim is None:
        return head_dim
    if require_even_dim(rotary_dim, "rotary_dim") > head_dim:
        refuse("rotary_dim", f"be at most the head dimension D={head_dim}", rotary_dim)
    return rotary_dim


def require_positions(positions, name: str = "positions", device=None) -> torch.Tensor:
    """Token positions: an integer tensor (on `device`, when one is given), a range or a (nested) list of ints;
    floats are refused, not rounded. Returns the integer tensor it inspected."""
    if isinstance(positions, torch.Tensor):
        if positions.dtype.is_floating_point or positions.dtype.is_complex or positions.dtype == torch.bool:
            refuse(name, "hold integers (token indices)", f"dtype {positions.dtype}", TypeError)
        if device is not None and positions.device != torch.device(device):
            refuse(name, f"be on device {device} like the input", positions.device)
        return positions
    if not isinstance(positions, (range, list, tuple)):
        refuse(name, "be an integer tensor, a range or a list of ints", type(positions).__name__, TypeError)
    if not all(isinstance(p, numbers.Integral) and not isinstance(p, bool) for p in _flatten(positions)):
        refuse(name, "hold integers (token indices)", f"{positions!r:.80}", TypeError)
    try:
        return torch.as_tensor(positions, dtype=torch.int64)
    except (OverflowError, RuntimeError, ValueError) as error:  # torch says "Overflow when unpacking long long"
        raise ValueError(f"{name} must be integers that fit in int64 and form a rectangular array, got {positions!r:.80}") from error


def _flatten(items):
    for item in items:
        yield from _flatten(item) if isinstance(item, (list, tuple)) else (item,)


def require_token_positions(positions, batch: int, seq: int, device: torch.device) -> torch.Tensor:
    """The positions of T = seq tokens of B = batch sequences: integers (T,) or (B, T) on `device`."""
    pos = require_positions(positions, device=device)
    if pos.shape not in ((seq,), (batch, seq)):
        refuse("positions", f"have shape (T,) = ({seq},) or (B, T) = ({batch}, {seq})", tuple(pos.shape))
    return pos


def require_real_array(values, name: str) -> np.ndarray:
    """Real numbers (a list, an array or a tensor), returned as a float64 numpy copy to inspect; complex, boolean
    and non-numeric values are refused, not cast (a cast would drop an imaginary part)."""
    array = values.detach().cpu() if isinstance(values, torch.Tensor) else values
    array = np.asarray(array.double() if isinstance(array, torch.Tensor) and array.is_floating_point() else array)
    if array.dtype == bool or not (np.issubdtype(array.dtype, np.floating) or np.issubdtype(array.dtype, np.integer)):
        refuse(name, "hold real numbers", f"dtype {getattr(values, 'dtype', array.dtype)}", TypeError)
    return array.astype(np.float64)


def require_vector(values, n: int, name: str = "inv_freq", *, shape: str = "have shape (rotary_dim/2,)",
                   items: str = "finite frequencies of at least 0", positive: bool = False) -> None:
    """n finite numbers of at least 0 (above 0 when positive): by default rotary frequencies, where 0 is a pair that
    never turns (p-RoPE's slow pairs). `shape` and `items` say in the errors what the caller expects."""
    array = require_real_array(values, name)
    if array.shape != (n,):
        refuse(name, f"{shape} = ({n},)", array.shape)
    if not (np.isfinite(array).all() and (array > 0 if positive else array >= 0).all()):
        refuse(name, f"hold {items}", f"min {array.min()} and max {array.max()}")


def inv_freq_or_base_arguments(a, d: int, name: str = "inv_freq") -> None:
    """d/2 frequencies: a[name] when given, else base^(−2i/d) from a["base"]."""
    if a[name] is None:
        require_base(a["base"])
    else:
        require_vector(a[name], d // 2, name)


def require_axis_frequencies(inv_freq, name: str = "inv_freq") -> np.ndarray:
    """A (D/2, A) table of finite frequency vectors, one row per pair; returns a float64 copy to inspect."""
    values = require_real_array(inv_freq, name)
    if values.ndim != 2 or 0 in values.shape:
        refuse(name, "have shape (D/2, A): one frequency vector of A axes per pair", values.shape)
    if not np.isfinite(values).all():
        raise ValueError(f"{name} must hold finite frequencies")
    return values


def require_matrix_for(w, d: int, name: str) -> None:
    if np.ndim(w) != 2 or np.shape(w)[1] != d:
        refuse(name, f"have shape (d_out, {d})", np.shape(w))
