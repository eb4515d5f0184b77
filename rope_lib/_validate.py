"""Argument validation for the whole library (private: called at the public edges), one verb: `require_*` raises on a bad argument.

Every failure names the argument and what was expected, so bad input is never
silently truncated, broadcast or cast. (`check_*` is kept for the exercise
checks of `rope_lib.teach.exercises`, which report to a student instead of raising.)

Checks run at the public edges only: `checked_by` wraps a public function with the function that checks
its arguments, and a call made while another checked call runs (a model's layers, its cache, its rotation)
is not checked again. So the functions a chapter shows hold the computation alone, and a decoding step
costs its arithmetic.
"""

from __future__ import annotations

import functools
import inspect
import math
import numbers
import threading

import numpy as np
import torch

LAYOUTS = ("interleaved", "half")
"""Pairing conventions: Meta pairs (2i, 2i+1); Hugging Face pairs (i, i + D/2)."""

FLOAT_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)
"""The dtypes activations, weights and cos/sin tables may have."""


_EDGE = threading.local()
"""`inside` is True while a checked call runs in this thread: the calls it makes were checked at its edge."""


def checked_by(check, *, covers_its_calls: bool = True):
    """Decorate a public function or method with `check(arguments)`, which raises on a bad argument and may
    replace one by its normalised form (arguments: the call's bound arguments, defaults applied, by name).
    The check runs when the call comes from outside the library; calls made while a checked call runs skip it.
    covers_its_calls=False: for a function that runs code it is handed (a layer, a task), whose calls to the
    library are then checked as any call from outside."""

    def decorate(function):
        signature = inspect.signature(function)

        @functools.wraps(function)
        def edge(*args, **kwargs):
            if getattr(_EDGE, "inside", False):
                return function(*args, **kwargs)
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            check(bound.arguments)
            if not covers_its_calls:
                return function(*bound.args, **bound.kwargs)
            _EDGE.inside = True
            try:
                return function(*bound.args, **bound.kwargs)
            finally:
                _EDGE.inside = False

        return edge

    return decorate


def compute_dtype(dtype: torch.dtype) -> torch.dtype:
    """The dtype rotations are computed in: float64 for float64 inputs, float32 for the rest."""
    return torch.float64 if dtype == torch.float64 else torch.float32


def require_int(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int, got {type(value).__name__} {value!r:.60}")
    return int(value)


def require_positive_int(value, name: str) -> int:
    value = require_int(value, name)
    if value <= 0:
        raise ValueError(f"{name} must be a positive integer, got {value}")
    return value


def require_non_negative_int(value, name: str) -> int:
    value = require_int(value, name)
    if value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value}")
    return value


def require_even_dim(dim, name: str = "dim") -> int:
    """A rotary dimension must be a positive even integer: coordinates rotate in pairs."""
    dim = require_int(dim, name)
    if dim <= 0 or dim % 2:
        raise ValueError(f"{name} must be a positive even integer (coordinates rotate in pairs), got {dim}")
    return dim


def require_real(value, name: str) -> float:
    """A finite real number (bools, strings, NaN and infinities are refused)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        raise TypeError(f"{name} must be a finite real number, got {value!r}")
    return float(value)


def require_bool(value, name: str) -> bool:
    """True or False, not merely truthy: "no" is not False."""
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return value


def require_base(base, name: str = "base") -> float:
    """The RoPE base (10000 in RoFormer and LLaMA 1/2, 500000 in Llama 3)."""
    if isinstance(base, bool) or not isinstance(base, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(base).__name__}")
    if not (base > 1.0 and math.isfinite(base)):
        raise ValueError(f"{name} must be a finite number greater than 1 so that the frequencies decrease, got {base}")
    return float(base)


def require_factor(factor, name: str = "factor") -> float:
    """A context-extension factor s = L'/L: a finite real number of at least 1."""
    factor = require_real(factor, name)
    if factor < 1.0:
        raise ValueError(f"{name} must be at least 1 (the new context over the trained one), got {factor}")
    return factor


def require_positive_real(value, name: str) -> float:
    value = require_real(value, name)
    if value <= 0:
        raise ValueError(f"{name} must be greater than 0, got {value}")
    return value


def require_attention_factor(value, name: str = "attention_factor") -> float:
    """The number cos and sin are multiplied by (YaRN's √(1/t)): a finite real number above 0."""
    return require_positive_real(value, name)


def require_layout(layout, name: str = "layout") -> str:
    if not isinstance(layout, str) or layout not in LAYOUTS:
        raise ValueError(f"{name} must be one of {LAYOUTS}, got {layout!r}")
    return layout


def require_float_dtype(dtype, name: str = "dtype") -> torch.dtype:
    """A real floating torch dtype (not a string, an integer or a complex dtype)."""
    if not isinstance(dtype, torch.dtype):
        raise TypeError(f"{name} must be a torch.dtype, one of {FLOAT_DTYPES}, got {type(dtype).__name__} {dtype!r}")
    if dtype not in FLOAT_DTYPES:
        raise TypeError(f"{name} must be a floating dtype, one of {FLOAT_DTYPES}, got {dtype}")
    return dtype


def require_device(device, name: str = "device") -> torch.device:
    """A device torch can place tensors on here: a CUDA device needs a visible GPU."""
    try:
        device = torch.device(device)
    except (RuntimeError, TypeError) as error:
        raise ValueError(f"{name} must be a torch.device or a device string such as 'cpu' or 'cuda', got {device!r}") from error
    if device.type == "cuda":
        if not torch.cuda.is_available():
            raise ValueError(f"{name} is {str(device)!r}, but no CUDA device is visible; pass device='cpu' or None")
        if device.index is not None and device.index >= torch.cuda.device_count():
            raise ValueError(f"{name} is {str(device)!r}, but only {torch.cuda.device_count()} CUDA devices are visible")
    return device


def require_float_tensor(x, name: str) -> torch.Tensor:
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(x).__name__}")
    if x.dtype not in FLOAT_DTYPES:
        raise TypeError(f"{name} must have a floating dtype {FLOAT_DTYPES}, got {x.dtype}")
    return x


def require_bthd(x, name: str) -> torch.Tensor:
    """A (B, T, H, D) activation with an even head dimension D."""
    require_float_tensor(x, name)
    if x.dim() != 4:
        raise ValueError(f"{name} must have shape (B, T, H, D), got {x.dim()} dimensions {tuple(x.shape)}")
    if x.shape[-1] % 2:
        raise ValueError(f"{name} must have an even head dimension D (coordinates rotate in pairs), got D={x.shape[-1]}")
    return x


def require_rotary_dim(rotary_dim, head_dim: int) -> int:
    """How many leading coordinates of a head rotate: None means all head_dim of them."""
    if rotary_dim is None:
        return head_dim
    rotary_dim = require_even_dim(rotary_dim, "rotary_dim")
    if rotary_dim > head_dim:
        raise ValueError(f"rotary_dim must be at most the head dimension D={head_dim}, got {rotary_dim}")
    return rotary_dim


def require_positive_vector(values, n: int, name: str, *, shape: str, items: str, allow_zero: bool = False) -> np.ndarray:
    """n finite real numbers above 0 (or at least 0, with allow_zero) from a list, tuple or array, as float64 numpy.
    The errors say what the caller expects: `shape`, how the length is given ("have shape (rotary_dim/2,)"), and
    `items`, what the numbers are ("positive finite frequencies")."""
    array = require_real_array(values, name)
    if array.shape != (n,):
        raise ValueError(f"{name} must {shape} = ({n},), got {array.shape}")
    if not (np.isfinite(array).all() and ((array >= 0) if allow_zero else (array > 0)).all()):
        raise ValueError(f"{name} must hold {items}, got min {array.min()} and max {array.max()}")
    return array


def _readable(t: torch.Tensor) -> np.ndarray:
    """A tensor's values as numpy, detached: floats as float64 (numpy has no bfloat16), other dtypes as they are."""
    t = t.detach().cpu()
    return (t.double() if t.dtype.is_floating_point else t).numpy()


def require_real_array(values, name: str) -> np.ndarray:
    """Real numbers (a list, an array or a tensor) as float64 numpy; complex, boolean and non-numeric values are
    refused, not cast (a cast would drop an imaginary part)."""
    is_tensor = isinstance(values, torch.Tensor)
    array = np.asarray(_readable(values) if is_tensor else values)
    if array.dtype == bool or not (np.issubdtype(array.dtype, np.floating) or np.issubdtype(array.dtype, np.integer)):
        raise TypeError(f"{name} must hold real numbers, got dtype {values.dtype if is_tensor else array.dtype}")
    return array.astype(np.float64)


def require_frequencies(freqs, n_pairs: int, name: str = "inv_freq") -> np.ndarray:
    """A vector of n_pairs finite frequencies of at least 0 (numpy, torch or a list) as float64 numpy. A frequency
    of 0 is a pair that never turns (p-RoPE's slow pairs)."""
    if isinstance(freqs, torch.Tensor):
        freqs = _readable(freqs)
    return require_positive_vector(
        freqs, n_pairs, name, shape="have shape (rotary_dim/2,)", items="finite frequencies of at least 0", allow_zero=True
    )


def frequency_tensor(freqs, n_pairs: int, device: torch.device, name: str = "inv_freq") -> torch.Tensor:
    """`require_frequencies` for a computation in torch: n_pairs frequencies as a float64 tensor on `device`. A tensor
    keeps its graph, so learnable frequencies get gradients."""
    if not isinstance(freqs, torch.Tensor):
        return torch.from_numpy(require_frequencies(freqs, n_pairs, name)).to(device)
    require_frequencies(freqs, n_pairs, name)  # its values, on a detached copy
    return freqs.to(device=device, dtype=torch.float64)


def require_rotary_inputs(x, cos, sin, layout: str, rotary_dim: int | None) -> int:
    """The arguments of `rotate_pairs`: x (B, T, H, D) and tables of one shape, (T, rot/2) or (B, T, rot/2),
    in x's compute dtype on x's device. Returns rot, the number of coordinates that turn."""
    require_bthd(x, "x")
    require_layout(layout)
    batch, seq, _, dim = x.shape
    rot = require_rotary_dim(rotary_dim, dim)
    half = "D/2" if rotary_dim is None else "rotary_dim/2"
    want = compute_dtype(x.dtype)
    for name, table in (("cos", cos), ("sin", sin)):
        if not isinstance(table, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(table).__name__}")
        if table.shape not in ((seq, rot // 2), (batch, seq, rot // 2)):
            raise ValueError(
                f"{name} must have shape (T, {half}) = ({seq}, {rot // 2}) or (B, T, {half}) = ({batch}, {seq}, {rot // 2}) "
                f"to match x of shape {tuple(x.shape)}, got {tuple(table.shape)}"
            )
        if table.device != x.device:
            raise ValueError(f"{name} must be on x's device {x.device}, got {table.device}")
        if table.dtype != want:
            raise TypeError(f"{name} must have dtype {want} to rotate x of dtype {x.dtype}, got {table.dtype}")
    if cos.shape != sin.shape:
        raise ValueError(f"cos and sin must have the same shape, got {tuple(cos.shape)} and {tuple(sin.shape)}")
    return rot


def _byte_span(t: torch.Tensor) -> tuple[int, int]:
    """First and one-past-last byte address that t can touch."""
    reach = sum((size - 1) * stride for size, stride in zip(t.shape, t.stride()) if size > 0)
    return t.data_ptr(), t.data_ptr() + (reach + 1) * t.element_size()


def _share_memory(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Whether a and b have a byte in common. Free when their byte spans are apart (a KV-cache slice and
    a fresh tensor); else exact, at one mark per byte of the spans, because spans may interleave
    without sharing an element (the two halves of each row of one buffer). Meta tensors hold no memory."""
    if a.is_meta or not (a.numel() and b.numel()):
        return False
    (a0, a1), (b0, b1) = _byte_span(a), _byte_span(b)
    if a1 <= b0 or b1 <= a0:
        return False
    start = min(a0, b0)
    marks = torch.zeros(max(a1, b1) - start, dtype=torch.bool)

    def bytes_of(t):  # the marks under t's bytes, as a view of shape (*t.shape, element_size)
        size = t.element_size()
        return marks.as_strided((*t.shape, size), (*(stride * size for stride in t.stride()), 1), t.data_ptr() - start)

    bytes_of(a).fill_(True)
    return bool(bytes_of(b).any())


def require_out(out, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> bool:
    """An output buffer for the rotation of x by cos and sin: same shape, dtype and device as x, no element
    written twice, none of cos or sin (they are read while out is written), and either none of x or x
    itself (in place). Returns True for in place."""
    if not isinstance(out, torch.Tensor):
        raise TypeError(f"out must be a torch.Tensor or None, got {type(out).__name__}")
    if out.shape != x.shape or out.dtype != x.dtype or out.device != x.device:
        raise ValueError(
            f"out must match x: shape {tuple(x.shape)}, dtype {x.dtype}, device {x.device}; "
            f"got shape {tuple(out.shape)}, dtype {out.dtype}, device {out.device}"
        )
    if any(stride == 0 and size > 1 for size, stride in zip(out.shape, out.stride())):
        raise ValueError(f"out must not be an expanded tensor (stride 0 writes one element many times), got strides {out.stride()}")
    in_place = out.data_ptr() == x.data_ptr() and out.stride() == x.stride()
    if not in_place and _share_memory(out, x):
        raise ValueError("out overlaps x without being x: pass out=x to rotate in place, or a separate buffer")
    for name, table in (("cos", cos), ("sin", sin)):
        if _share_memory(out, table):
            raise ValueError(f"out overlaps {name}: the rotation would overwrite the table while reading it; pass a separate buffer")
    return in_place


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
        try:
            return torch.as_tensor(positions, dtype=torch.int64, device=device)
        except (OverflowError, RuntimeError, ValueError) as error:  # torch says "Overflow when unpacking long long"
            raise ValueError(f"{name} must be integers that fit in int64 and form a rectangular array, got {positions!r:.80}") from error
    raise TypeError(f"{name} must be an integer tensor, a range or a list of ints, got {type(positions).__name__}")


def require_token_positions(positions, batch: int, seq: int, device: torch.device) -> torch.Tensor:
    """The positions of the T = seq tokens of a batch of B = batch sequences: integers of shape (T,) or (B, T) on `device`."""
    pos = as_positions(positions, device=device)
    if pos.shape not in ((seq,), (batch, seq)):
        raise ValueError(f"positions must have shape (T,) = ({seq},) or (B, T) = ({batch}, {seq}), got {tuple(pos.shape)}")
    return pos


def _flatten(items):
    for item in items:
        if isinstance(item, (list, tuple)):
            yield from _flatten(item)
        else:
            yield item


def require_increasing_pair(low, high, low_name: str, high_name: str) -> tuple[float, float]:
    """Two finite real numbers with 0 < low < high (YaRN's beta_slow < beta_fast, Llama 3.1's low_freq_factor < high_freq_factor)."""
    low, high = require_real(low, low_name), require_real(high, high_name)
    if not 0 < low < high:
        raise ValueError(f"{low_name} and {high_name} must satisfy 0 < {low_name} < {high_name}, got {low_name}={low} and {high_name}={high}")
    return low, high


def require_optional_positive_real(value, name: str) -> float | None:
    """None (the setting is not given) or a finite real number above 0."""
    if value is None:
        return None
    value = require_real(value, name)
    if value <= 0:
        raise ValueError(f"{name} must be greater than 0 (or None), got {value}")
    return value


def require_quarter_dim(d, name: str = "d") -> int:
    """A head dimension divisible by 4: half its pairs go to each of the two axes."""
    d = require_positive_int(d, name)
    if d % 4:
        raise ValueError(f"{name} must be a multiple of 4 (d/2 pairs, half of them per axis), got {d}")
    return d


def require_axis_frequencies(freqs, name: str = "freqs"):
    """A (D/2, A) table of finite real frequency vectors, one row per pair: float64 numpy from an array or a list,
    and from a tensor a float64 tensor that keeps its graph (learnable frequencies, as RoPE-Mixed's, get gradients)."""
    values = require_real_array(freqs, name)
    if values.ndim != 2 or values.shape[0] == 0 or values.shape[1] == 0:
        raise ValueError(f"{name} must have shape (D/2, A): one frequency vector of A axes per pair, got {values.shape}")
    if not np.isfinite(values).all():
        raise ValueError(f"{name} must hold finite frequencies")
    return freqs.to(torch.float64) if isinstance(freqs, torch.Tensor) else values


# The checks of the public functions of `rope_lib.rope`, run by `checked_by` at the edge: each takes the call's
# arguments by name and replaces those it normalises.


def rope_angles_arguments(a) -> None:
    a["positions"] = as_positions(a["positions"])
    a["dim"] = require_even_dim(a["dim"], "dim")
    if a["inv_freq"] is None:
        a["base"] = require_base(a["base"])
    else:
        a["inv_freq"] = frequency_tensor(a["inv_freq"], a["dim"] // 2, a["positions"].device)


def rope_cos_sin_arguments(a) -> None:
    a["dtype"] = require_float_dtype(a["dtype"], "dtype")
    a["attention_factor"] = require_attention_factor(a["attention_factor"])
    rope_angles_arguments(a)


def layout_arguments(a) -> None:
    require_layout(a["layout"])


def rotate_pairs_arguments(a) -> None:
    a["rotary_dim"] = require_rotary_inputs(a["x"], a["cos"], a["sin"], a["layout"], a["rotary_dim"])


def apply_rope_arguments(a) -> None:
    x = require_bthd(a["x"], "x")
    a["positions"] = require_token_positions(a["positions"], *x.shape[:2], x.device)
    a["rotary_dim"] = require_rotary_dim(a["rotary_dim"], x.shape[-1])
    require_layout(a["layout"])
    a["attention_factor"] = require_attention_factor(a["attention_factor"])
    if a["inv_freq"] is None:
        a["base"] = require_base(a["base"])
    else:
        a["inv_freq"] = frequency_tensor(a["inv_freq"], a["rotary_dim"] // 2, x.device)


def precompute_freqs_cis_arguments(a) -> None:
    a["dim"] = require_even_dim(a["dim"], "dim")
    a["end"] = require_positive_int(a["end"], "end")
    a["theta"] = require_base(a["theta"], "theta")
    if a["dtype"] not in (torch.complex64, torch.complex128):
        raise TypeError(f"dtype must be torch.complex64 or torch.complex128, got {a['dtype']}")
    if a["inv_freq"] is not None:
        device = torch.device("cpu") if a["device"] is None else require_device(a["device"])
        a["inv_freq"] = frequency_tensor(a["inv_freq"], a["dim"] // 2, device)


def reshape_for_broadcast_arguments(a) -> None:
    freqs_cis, x = a["freqs_cis"], a["x"]
    want = (x.shape[1], x.shape[-1] // 2)
    if not isinstance(freqs_cis, torch.Tensor) or not freqs_cis.is_complex():
        raise TypeError(f"freqs_cis must be a complex tensor from precompute_freqs_cis, got {getattr(freqs_cis, 'dtype', type(freqs_cis).__name__)}")
    if tuple(freqs_cis.shape) != want:
        raise ValueError(
            f"freqs_cis must have shape (T, D/2) = {want} for x of shape {tuple(x.shape)}, got {tuple(freqs_cis.shape)}; "
            "slice the table as freqs_cis[start_pos : start_pos + T]"
        )


def apply_rotary_emb_arguments(a) -> None:
    xq, xk, freqs_cis = require_bthd(a["xq"], "xq"), require_bthd(a["xk"], "xk"), a["freqs_cis"]
    if xq.dtype != xk.dtype or xq.device != xk.device:
        raise TypeError(f"xq and xk must share dtype and device, got {xq.dtype} on {xq.device} and {xk.dtype} on {xk.device}")
    if xq.shape[:2] != xk.shape[:2] or xq.shape[-1] != xk.shape[-1]:
        raise ValueError(f"xq and xk must share B, T and D, got shapes {tuple(xq.shape)} and {tuple(xk.shape)}")
    want = torch.complex128 if xq.dtype == torch.float64 else torch.complex64
    if isinstance(freqs_cis, torch.Tensor) and freqs_cis.is_complex() and freqs_cis.dtype != want:
        raise TypeError(f"freqs_cis must have dtype {want} to rotate inputs of dtype {xq.dtype}, got {freqs_cis.dtype}")
    if isinstance(freqs_cis, torch.Tensor) and freqs_cis.device != xq.device:
        raise ValueError(f"freqs_cis must be on the inputs' device {xq.device}, got {freqs_cis.device}")
    reshape_for_broadcast_arguments({"freqs_cis": freqs_cis, "x": xq})


# The checks of the decoder's public edges (`rope_lib.llama`): building a model or a layer on its own, a
# model's forward and generate, an attention layer's forward and scores, a cache's update.


def model_config(config, position_encodings: tuple[str, ...], scaling_type: type, default_base: float) -> None:
    """Every field of a `ModelConfig`; the default base, layout and scaling unless the encoding is RoPE."""
    for name in ("vocab_size", "dim", "n_layers", "n_heads", "hidden_dim", "max_seq_len", "max_batch_size"):
        require_positive_int(getattr(config, name), name)
    if config.n_kv_heads is not None:
        require_positive_int(config.n_kv_heads, "n_kv_heads")
    head_dim = require_heads(config.dim, config.n_heads, config.kv_heads)
    require_positive_real(config.norm_eps, "norm_eps")
    require_base(config.base)
    require_layout(config.layout)
    require_scaling(config.scaling, scaling_type, head_dim)
    require_bool(config.tie_embeddings, "tie_embeddings")
    require_float_dtype(config.dtype)
    if config.device is not None:
        require_device(config.device)
    if not isinstance(config.position_encoding, str) or config.position_encoding not in position_encodings:
        raise ValueError(f"position_encoding must be one of {position_encodings}, got {config.position_encoding!r}")
    if config.position_encoding != "rope" and (config.scaling is not None or config.base != default_base or config.layout != "interleaved"):
        raise ValueError(
            f"base, layout and scaling are RoPE's settings; position_encoding={config.position_encoding!r} does not rotate, "
            f"so leave them at their defaults, got base={config.base}, layout={config.layout!r}, scaling={config.scaling}"
        )


def require_heads(dim: int, n_heads: int, n_kv_heads: int) -> int:
    """dim splits into n_heads heads of an even width, and the query heads into groups of n_kv_heads; the head width."""
    if dim % n_heads:
        raise ValueError(f"dim={dim} must be divisible by n_heads={n_heads}")
    if n_heads % n_kv_heads:
        raise ValueError(f"n_heads={n_heads} must be a multiple of n_kv_heads={n_kv_heads}")
    return require_even_dim(dim // n_heads, "head_dim (dim / n_heads)")


def require_scaling(scaling, scaling_type: type, rotary_dim: int) -> None:
    """None or a `RopeScaling` (the type given: the rules module is checked by this one, so it is not imported here)
    whose rule can rescale rotary_dim coordinates: the NTK-aware rules need rotary_dim ≥ 4."""
    if scaling is not None and not isinstance(scaling, scaling_type):
        raise TypeError(f"scaling must be a rope_lib.RopeScaling or None, got {type(scaling).__name__}")
    if scaling is not None and scaling.method in ("ntk", "dynamic"):
        require_ntk_dim(rotary_dim, f"the rotary dimension of scaling method {scaling.method!r}")


def require_ntk_dim(d: int, name: str = "d") -> int:
    """The NTK-aware exponent d/(d−2) needs d ≥ 4."""
    if d < 4:
        raise ValueError(f"{name} must be at least 4 for the NTK-aware exponent d/(d−2), got {d}")
    return d


def require_log_length(original_max_len, name: str = "original_max_len") -> int:
    """A trained length L whose logarithm can divide: L ≥ 2 (LongRoPE's attention factor √(1 + ln s / ln L))."""
    original_max_len = require_positive_int(original_max_len, name)
    if original_max_len < 2:
        raise ValueError(f"{name} must be at least 2 (ln L is the denominator), got {original_max_len}")
    return original_max_len


def rms_norm_arguments(a) -> None:
    a["dim"] = require_positive_int(a["dim"], "dim")
    a["eps"] = require_positive_real(a["eps"], "eps")
    a["dtype"] = require_float_dtype(a["dtype"])


def kv_cache_arguments(a) -> None:
    for name in ("max_batch_size", "max_seq_len", "n_kv_heads", "head_dim"):
        a[name] = require_positive_int(a[name], name)
    a["dtype"] = require_float_dtype(a["dtype"], "dtype")
    if a["device"] is not None:
        a["device"] = require_device(a["device"])


def kv_cache_update_arguments(a) -> None:
    cache, k, v = a["self"], a["k"], a["v"]
    a["start_pos"] = start_pos = require_non_negative_int(a["start_pos"], "start_pos")
    for name, t in (("k", k), ("v", v)):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
        hkv, d = cache.k.shape[1], cache.k.shape[3]
        if t.dim() != 4 or (t.shape[1], t.shape[3]) != (hkv, d) or t.shape[0] > cache.max_batch_size:
            raise ValueError(f"{name} must have shape (B ≤ {cache.max_batch_size}, Hkv={hkv}, T, D={d}), got {tuple(t.shape)}")
        if t.dtype != cache.k.dtype or t.device != cache.k.device:
            raise TypeError(f"{name} must have the cache's dtype {cache.k.dtype} on {cache.k.device}, got {t.dtype} on {t.device}")
    if k.shape != v.shape:
        raise ValueError(f"k and v must have the same shape, got {tuple(k.shape)} and {tuple(v.shape)}")
    require_room(cache, k.shape[0], start_pos, k.shape[2])


def require_room(cache, batch: int, start_pos: int, seq: int) -> None:
    """A write of `batch` sequences of `seq` positions at start_pos fits the cache and continues what it holds: at 0,
    any batch (new sequences); else at most at its `length` (no gap), with the same batch (no row without its past)."""
    end = start_pos + seq
    if end > cache.max_seq_len:
        raise ValueError(f"start_pos + T = {start_pos} + {seq} = {end} is past the cache of max_seq_len={cache.max_seq_len} positions")
    if batch > cache.max_batch_size:
        raise ValueError(f"the batch has {batch} sequences, more than max_batch_size={cache.max_batch_size}")
    if start_pos == 0:
        return
    if cache.length == 0:
        raise ValueError(f"start_pos={start_pos}, but the cache is empty (new, or reset): a sequence starts at start_pos=0")
    if start_pos > cache.length:
        raise ValueError(
            f"start_pos={start_pos} would leave a gap: the cache holds positions 0 … {cache.length - 1}, so the next "
            f"write starts at {cache.length} or before"
        )
    if batch != cache.batch:
        raise ValueError(
            f"the write has {batch} sequences, the cache holds {cache.batch}: another batch starts at start_pos=0 "
            "(its rows would attend to keys of other sequences, or to none)"
        )


def attention_arguments(a, position_encodings: tuple[str, ...], scaling_type: type) -> None:
    encoding = a["position_encoding"]
    if not isinstance(encoding, str) or encoding not in position_encodings:
        raise ValueError(f"position_encoding must be one of {position_encodings}, got {encoding!r}")
    if encoding != "rope" and (a["scaling"] is not None or a["rotary_dim"] is not None):
        raise ValueError(f"scaling and rotary_dim are RoPE's settings: pass None for position_encoding={encoding!r}")
    a["dim"] = require_positive_int(a["dim"], "dim")
    a["n_heads"] = require_positive_int(a["n_heads"], "n_heads")
    if a["n_kv_heads"] is not None:
        a["n_kv_heads"] = require_positive_int(a["n_kv_heads"], "n_kv_heads")
    head_dim = require_heads(a["dim"], a["n_heads"], a["n_heads"] if a["n_kv_heads"] is None else a["n_kv_heads"])
    a["max_batch_size"] = require_positive_int(a["max_batch_size"], "max_batch_size")
    a["max_seq_len"] = require_positive_int(a["max_seq_len"], "max_seq_len")
    a["base"] = require_base(a["base"])
    a["layout"] = require_layout(a["layout"])
    a["rotary_dim"] = None if a["rotary_dim"] is None else require_rotary_dim(a["rotary_dim"], head_dim)
    require_scaling(a["scaling"], scaling_type, head_dim if a["rotary_dim"] is None else a["rotary_dim"])
    a["dtype"] = require_float_dtype(a["dtype"], "dtype")
    if a["device"] is not None:
        a["device"] = require_device(a["device"])
    if a["rope_table"] is not None:
        raise ValueError("rope_table is given by a Model to the layers it builds; an Attention on its own makes its own")


def require_layer_input(module, x, name: str = "x") -> torch.Tensor:
    """x (B, T, dim) in the module's dtype, on its device."""
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(x).__name__}")
    if x.dim() != 3 or x.shape[-1] != module.dim:
        raise ValueError(f"{name} must have shape (B, T, dim={module.dim}), got {tuple(x.shape)}")
    weight = module.wqkv.weight
    if x.device != weight.device:
        raise ValueError(f"{name} must be on the module's device {weight.device}, got {x.device}")
    if x.dtype != weight.dtype:
        raise TypeError(f"{name} must have the module's dtype {weight.dtype}, got {x.dtype}")
    return x


def attention_forward_arguments(a) -> None:
    x = require_layer_input(a["self"], a["x"])
    a["start_pos"] = require_non_negative_int(a["start_pos"], "start_pos")
    a["use_cache"] = require_bool(a["use_cache"], "use_cache")
    if a["use_cache"]:
        require_room(a["self"].cache, x.shape[0], a["start_pos"], x.shape[1])


def attention_scores_arguments(a) -> None:
    x = require_layer_input(a["self"], a["x"])
    pos = require_token_positions(a["positions"], *x.shape[:2], x.device)
    if pos.numel() and int(pos.min()) < 0:
        raise ValueError(f"positions must be non-negative, got {int(pos.min())}")
    a["positions"] = pos


def model_arguments(a, config_type) -> None:
    if not isinstance(a["config"], config_type):
        raise TypeError(f"config must be a rope_lib.ModelConfig, got {type(a['config']).__name__}")


def require_tokens(model, tokens, name: str) -> torch.Tensor:
    """Token ids (B, T), B, T ≥ 1, int64 or int32, on the model's device, below its vocab_size."""
    if not isinstance(tokens, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor of token ids, got {type(tokens).__name__}")
    if tokens.dtype not in (torch.int64, torch.int32):
        raise TypeError(f"{name} must hold token ids as torch.int64 or torch.int32, got {tokens.dtype}")
    if tokens.dim() != 2 or 0 in tokens.shape:
        raise ValueError(f"{name} must have shape (B, T) with B, T ≥ 1, got {tuple(tokens.shape)}")
    if tokens.device != model.device:
        raise ValueError(f"{name} must be on the model's device {model.device}, got {tokens.device}")
    low, high = int(tokens.min()), int(tokens.max())
    if low < 0 or high >= model.config.vocab_size:
        raise ValueError(f"{name} must be token ids in [0, vocab_size={model.config.vocab_size}), got values from {low} to {high}")
    return tokens


def model_forward_arguments(a) -> None:
    model = a["self"]
    tokens = require_tokens(model, a["tokens"], "tokens")
    a["start_pos"] = start_pos = require_non_negative_int(a["start_pos"], "start_pos")
    a["use_cache"] = require_bool(a["use_cache"], "use_cache")
    batch, seq = tokens.shape
    if a["use_cache"]:
        require_room(model.layers[0].attention.cache, batch, start_pos, seq)  # every layer's cache holds the same
    elif start_pos:
        raise ValueError(f"start_pos must be 0 when use_cache=False (no earlier tokens are read), got {start_pos}")
    elif model.config.position_encoding == "learned" and seq > model.config.max_seq_len:
        raise ValueError(
            f"tokens has T = {seq} positions, but the learned position table has max_seq_len={model.config.max_seq_len} rows: "
            "a learned encoding knows no position past its table"
        )


def generate_arguments(a) -> None:
    model = a["self"]
    vocab = model.config.vocab_size
    prompt = require_tokens(model, a["prompt_tokens"], "prompt_tokens")
    a["max_new_tokens"] = require_positive_int(a["max_new_tokens"], "max_new_tokens")
    a["temperature"] = temperature = require_real(a["temperature"], "temperature")
    if temperature < 0:
        raise ValueError(f"temperature must be 0 (greedy) or greater, got {temperature}")
    if a["top_k"] is not None:
        a["top_k"] = require_positive_int(a["top_k"], "top_k")
        if a["top_k"] > vocab:
            raise ValueError(f"top_k must be at most vocab_size={vocab}, got {a['top_k']}")
    generator = a["generator"]
    if generator is not None:
        if not isinstance(generator, torch.Generator):
            raise TypeError(f"generator must be a torch.Generator or None, got {type(generator).__name__}")
        if generator.device.type != model.device.type:
            raise ValueError(f"generator must be on the model's device {model.device}, got {generator.device}")
    if temperature == 0 and (a["top_k"] is not None or generator is not None):
        raise ValueError("top_k and generator apply to sampling only: pass temperature > 0, or leave them None for greedy decoding")
    if a["eos_token_id"] is not None:
        a["eos_token_id"] = require_non_negative_int(a["eos_token_id"], "eos_token_id")
        if a["eos_token_id"] >= vocab:
            raise ValueError(f"eos_token_id must be a token id below vocab_size={vocab}, got {a['eos_token_id']}")
    batch, prompt_len = prompt.shape
    end = prompt_len + a["max_new_tokens"] - 1
    config = model.config
    if end > config.max_seq_len:
        raise ValueError(
            f"the prompt plus max_new_tokens − 1 = {prompt_len} + {a['max_new_tokens']} − 1 = {end} is past the cache of "
            f"max_seq_len={config.max_seq_len} positions"
        )
    if batch > config.max_batch_size:
        raise ValueError(f"the batch has {batch} sequences, more than max_batch_size={config.max_batch_size}")


# The checks of the functions the chapters list outside the decoder: frequencies and context extension, the
# multi-axis and M-RoPE tables, the sinusoidal encoding, and the book's helpers in `rope_lib.teach`.


def require_rescale_factors(values, n_pairs: int, name: str = "rescale_factors") -> np.ndarray:
    """LongRoPE's λ_i: n_pairs finite numbers above 0, one per pair, as float64 numpy."""
    return require_positive_vector(values, n_pairs, name, shape="hold one factor per pair, shape (d/2,)", items="finite factors above 0")


def require_proportion(value, name: str = "proportion") -> float:
    """p-RoPE's share p of the pairs that turn: a real number in [0, 1]."""
    value = require_real(value, name)
    if not 0 <= value <= 1:
        raise ValueError(f"{name} must lie in [0, 1], got {value}")
    return value


def require_attention_weights(weights) -> np.ndarray:
    """Attention maps (n_layers, B, H, T, T), a tensor or an array, as a numpy array."""
    weights = weights.numpy() if isinstance(weights, torch.Tensor) else np.asarray(weights, dtype=np.float64)
    if weights.ndim != 5 or weights.shape[-1] != weights.shape[-2]:
        raise ValueError(f"weights must have shape (n_layers, B, H, T, T), got {weights.shape}")
    return weights


def require_matrix_for(w, d: int, name: str) -> np.ndarray:
    """A projection (d_out, d) that takes vectors of length d, as float64 numpy."""
    if np.ndim(w) != 2 or np.shape(w)[1] != d:
        raise ValueError(f"{name} must have shape (d_out, {d}), got {np.shape(w)}")
    return np.asarray(w, dtype=np.float64)


def frequencies_arguments(a, dim: str = "d") -> None:
    """A rotary dimension (named `dim`) and the base its frequencies θ_i = base^(−2i/d) come from."""
    a[dim] = require_even_dim(a[dim], dim)
    a["base"] = require_base(a["base"], "base")


def angle_coverage_arguments(a) -> None:
    a["d"] = require_even_dim(a["d"], "d")
    a["context_len"] = require_positive_int(a["context_len"], "context_len")
    if a["freqs"] is None:
        a["base"] = require_base(a["base"], "base")
    else:
        a["freqs"] = require_frequencies(a["freqs"], a["d"] // 2, "freqs")


def scaled_frequencies_arguments(a, dim: str = "d") -> None:
    frequencies_arguments(a, dim)
    a["factor"] = require_factor(a["factor"])


def ntk_base_arguments(a) -> None:
    scaled_frequencies_arguments(a)
    require_ntk_dim(a["d"])


def dynamic_ntk_factor_arguments(a) -> None:
    a["factor"] = require_factor(a["factor"])
    a["seq_len"] = require_positive_int(a["seq_len"], "seq_len")
    a["original_max_len"] = require_positive_int(a["original_max_len"], "original_max_len")


def yarn_ramp_arguments(a) -> None:
    frequencies_arguments(a)
    a["original_max_len"] = require_positive_int(a["original_max_len"], "original_max_len")
    a["beta_slow"], a["beta_fast"] = require_increasing_pair(a["beta_slow"], a["beta_fast"], "beta_slow", "beta_fast")
    a["truncate"] = require_bool(a["truncate"], "truncate")


def yarn_attention_factor_arguments(a) -> None:
    a["factor"] = require_factor(a["factor"])
    a["mscale"] = require_positive_real(a["mscale"], "mscale")


def llama3_scale_freqs_arguments(a) -> None:
    a["freqs"] = require_positive_vector(
        a["freqs"], np.size(a["freqs"]), "freqs", shape="have shape (d/2,)", items="positive finite frequencies"
    )
    a["factor"] = require_factor(a["factor"])
    a["low_freq_factor"], a["high_freq_factor"] = require_increasing_pair(
        a["low_freq_factor"], a["high_freq_factor"], "low_freq_factor", "high_freq_factor"
    )
    a["original_max_len"] = require_positive_int(a["original_max_len"], "original_max_len")


def longrope_inv_freq_arguments(a) -> None:
    frequencies_arguments(a)
    a["rescale_factors"] = require_rescale_factors(a["rescale_factors"], a["d"] // 2)


def longrope_attention_factor_arguments(a) -> None:
    a["factor"] = require_factor(a["factor"])
    a["original_max_len"] = require_log_length(a["original_max_len"])


def proportional_inv_freq_arguments(a) -> None:
    scaled_frequencies_arguments(a, "head_dim")
    a["proportion"] = require_proportion(a["proportion"])


def rotary_matrix_arguments(a) -> None:
    require_layout(a["layout"])
    a["d"] = require_even_dim(a["d"], "d")
    if a["inv_freq"] is None:
        a["base"] = require_base(a["base"], "base")
    else:
        a["inv_freq"] = require_frequencies(a["inv_freq"], a["d"] // 2)


def alibi_slopes_arguments(a) -> None:
    a["n_heads"] = require_positive_int(a["n_heads"], "n_heads")


def sinusoidal_encoding_loop_arguments(a) -> None:
    a["seq_len"] = require_positive_int(a["seq_len"], "seq_len")
    frequencies_arguments(a)


def absolute_position_score_arguments(a) -> None:
    x_m, x_n = np.asarray(a["x_m"], dtype=np.float64), np.asarray(a["x_n"], dtype=np.float64)
    if x_m.ndim != 1 or x_m.shape != x_n.shape:
        raise ValueError(f"x_m and x_n must be vectors of one length d, got shapes {x_m.shape} and {x_n.shape}")
    require_even_dim(x_m.size, "the length d of x_m and x_n")
    a["x_m"], a["x_n"] = x_m, x_n
    a["w_q"], a["w_k"] = require_matrix_for(a["w_q"], x_m.size, "w_q"), require_matrix_for(a["w_k"], x_m.size, "w_k")
    a["base"] = require_base(a["base"], "base")


def rope_layers_arguments(a) -> None:
    a["n_layers"] = require_positive_int(a["n_layers"], "n_layers")
    if a["nope_layer_interval"] is not None:
        a["nope_layer_interval"] = require_positive_int(a["nope_layer_interval"], "nope_layer_interval")


def attention_temperature_arguments(a) -> None:
    pos = as_positions(a["positions"])
    if pos.ndim != 1:
        raise ValueError(f"positions must have shape (T,), got {tuple(pos.shape)}")
    if (pos < 0).any():
        raise ValueError(f"positions must be non-negative token indices, got min {int(pos.min())}")
    a["positions"] = pos
    a["floor_scale"] = require_positive_real(a["floor_scale"], "floor_scale")
    a["attn_scale"] = require_positive_real(a["attn_scale"], "attn_scale")


def multi_axis_angles_arguments(a) -> None:
    freqs = a["freqs"] = require_axis_frequencies(a["freqs"])
    pos = a["positions"] = as_positions(a["positions"])
    if pos.dim() == 0 or pos.shape[-1] != freqs.shape[1]:
        raise ValueError(
            f"positions must end in one coordinate per axis, (..., A) with A = {freqs.shape[1]} as freqs has, "
            f"got shape {tuple(pos.shape)}"
        )


def axial_freqs_2d_arguments(a, splits: tuple[str, ...]) -> None:
    a["d"] = require_quarter_dim(a["d"])
    a["base"] = require_base(a["base"], "base")
    if a["split"] not in splits:
        raise ValueError(f"split must be one of {splits}, got {a['split']!r}")


def mixed_freqs_2d_arguments(a) -> None:
    a["d"] = require_quarter_dim(a["d"])
    a["angle"] = require_real(a["angle"], "angle")
    a["base"] = require_base(a["base"], "base")


def mrope_axis_of_pair_arguments(a) -> None:
    section = a["mrope_section"]
    if not isinstance(section, (list, tuple)) or len(section) != 3:
        raise ValueError(f"mrope_section must be three pair counts (s_t, s_h, s_w), got {section!r}")
    s_t, s_h, s_w = (require_non_negative_int(s, "mrope_section entries") for s in section)
    a["interleaved"] = require_bool(a["interleaved"], "interleaved")
    n_pairs = s_t + s_h + s_w
    if n_pairs == 0:
        raise ValueError("mrope_section must give at least one pair")
    if a["interleaved"]:  # t, h, w, t, h, w, …: pair p ≡ 1 (mod 3) is h while p < 3·s_h, p ≡ 2 is w while p < 3·s_w
        h, w = len(range(1, min(n_pairs, 3 * s_h), 3)), len(range(2, min(n_pairs, 3 * s_w), 3))
        if (h, w) != (s_h, s_w):
            counts = (n_pairs - h - w, h, w)
            raise ValueError(f"interleaved mrope_section {tuple(section)} cannot be laid out as t, h, w, t, h, w, …: it gives {counts} pairs")
    a["mrope_section"] = (s_t, s_h, s_w)


def mrope_position_ids_arguments(a) -> None:
    """Each segment, its sizes made ints: ("text", n), ("image", (h, w)), ("video", (t, h, w))."""
    segments = a["segments"]
    if not isinstance(segments, (list, tuple)) or not segments:
        raise ValueError(f"segments must be a non-empty list of ('text', n), ('image', (h, w)) or ('video', (t, h, w)), got {segments!r:.80}")
    checked = []
    for segment in segments:
        if not (isinstance(segment, tuple) and len(segment) == 2 and segment[0] in ("text", "image", "video")):
            raise ValueError(f"each segment must be ('text', n), ('image', (h, w)) or ('video', (t, h, w)), got {segment!r:.80}")
        kind, size = segment
        if kind == "text":
            checked.append((kind, require_positive_int(size, "a text segment's length")))
            continue
        want = 2 if kind == "image" else 3
        if not isinstance(size, tuple) or len(size) != want:
            raise ValueError(f"an {kind} segment's grid must be a tuple of {want} sizes, got {size!r}")
        checked.append((kind, tuple(require_positive_int(g, f"an {kind} segment's grid sizes") for g in size)))
    a["segments"] = checked


def pair_to_complex_arguments(a) -> None:
    v = a["v"] = np.asarray(a["v"], dtype=np.float64)
    if v.ndim == 0 or v.shape[-1] != 2:
        raise ValueError(f"v must have a last axis of length 2 (the pair (a, b)), got shape {v.shape}")


def exp_partial_sums_arguments(a) -> None:
    a["n_terms"] = require_positive_int(a["n_terms"], "n_terms")
    z = a["z"]
    if not isinstance(z, (int, float, complex, np.number)) or isinstance(z, bool):
        raise TypeError(f"z must be a number, got {type(z).__name__}")


def b_m_theta_arguments(a) -> None:
    a["positions"] = np.asarray(a["positions"], dtype=np.float64)
    theta = a["freqs"] = np.asarray(a["freqs"], dtype=np.float64)
    if theta.ndim != 1 or theta.size == 0:
        raise ValueError(f"freqs must be a non-empty vector of frequencies θ_i, got shape {theta.shape}")


def tokenize_arguments(a) -> None:
    text = a["text"]
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    if not text.strip():  # every character but white space is a token or part of one
        raise ValueError(f"text must contain at least one word or punctuation mark, got {text!r}")


def embedding_table_arguments(a) -> None:
    a["vocab_size"] = require_positive_int(a["vocab_size"], "vocab_size")
    a["d"] = require_positive_int(a["d"], "d")
    a["seed"] = require_non_negative_int(a["seed"], "seed")


def self_attention_arguments(a) -> None:
    a["causal"] = require_bool(a["causal"], "causal")
    x = a["x"] = np.asarray(a["x"], dtype=np.float64)
    if x.ndim != 2:
        raise ValueError(f"x must have shape (N, d), got {x.ndim} dimensions {x.shape}")
    for name in ("w_q", "w_k", "w_v"):
        a[name] = require_matrix_for(a[name], x.shape[1], name)


def is_permutation_equivariant_arguments(a) -> None:
    if not callable(a["layer"]):
        raise TypeError(f"layer must be a function of the rows x, got {type(a['layer']).__name__}")
    x, perm = a["x"], a["perm"] = np.asarray(a["x"]), np.asarray(a["perm"])
    if sorted(perm.tolist()) != list(range(len(x))):
        raise ValueError(f"perm must be a permutation of range({len(x)}), got {perm.tolist()!r:.80}")
    a["atol"] = require_real(a["atol"], "atol")


def require_model(model, model_type: type) -> None:
    """A `rope_lib.Model` (the type given: `rope_lib.llama` is checked by this module, so it is not imported here)."""
    if not isinstance(model, model_type):
        raise TypeError(f"model must be a rope_lib.Model, got {type(model).__name__}")


def train_model_arguments(a, model_type: type) -> None:
    require_model(a["model"], model_type)
    a["steps"] = require_positive_int(a["steps"], "steps")
    a["batch_size"] = require_positive_int(a["batch_size"], "batch_size")
    a["lr"] = require_positive_real(a["lr"], "lr")
    a["seed"] = require_non_negative_int(a["seed"], "seed")
    a["seq_len"] = seq_len = require_positive_int(a["seq_len"], "seq_len")
    most = a["model"].config.max_seq_len
    if seq_len > most:
        raise ValueError(f"seq_len must be at most the model's max_seq_len={most}, got {seq_len}")


def offset_scores_arguments(a) -> None:
    weights = a["weights"] = require_attention_weights(a["weights"])
    last = weights.shape[-1] - 1
    a["first_query"] = require_non_negative_int(a["first_query"], "first_query")
    if a["max_offset"] is not None:
        a["max_offset"] = require_positive_int(a["max_offset"], "max_offset")
    for name in ("max_offset", "first_query"):  # the default max_offset, T // 2, is below T
        if a[name] is not None and a[name] > last:
            raise ValueError(f"{name} must be at most T − 1 = {last}, got {a[name]}")


def rescaled_arguments(a, model_type: type, rules) -> None:
    model = a["model"]
    require_model(model, model_type)
    if model.config.position_encoding != "rope":
        raise ValueError(f"model must use position_encoding='rope' to be rescaled, got {model.config.position_encoding!r}")
    if a["rule"] not in rules:
        raise ValueError(f"rule must be one of {tuple(rules)}, got {a['rule']!r}")
    a["factor"] = require_factor(a["factor"])
    a["trained_len"] = require_positive_int(a["trained_len"], "trained_len")
