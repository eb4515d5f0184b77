"""RoPE on torch tensors, in two forms that agree with the matrix reference.

* the real elementwise form of RoFormer eq. 34, `apply_rope`, for either layout;
* the complex form with Meta's names and signatures, `precompute_freqs_cis`
  and `apply_rotary_emb` (RoFormer eq. 12 applied pair by pair).

Context extension plugs in through `scaling=` (a `rope_lib.RopeScaling`, whose rule gives the frequencies and
the factor cos and sin carry), or by hand through `inv_freq=` and `attention_factor=`; `rotary_dim=` rotates
only the first rotary_dim coordinates (partial rotary).

Angles are always computed in float64 from integer positions and only the
cos/sin outputs are cast: in bf16, position 257 would round to 256.
Shapes: B batch, T tokens, H heads, D head dimension (chapter "Introduction").
The checked entries are `rope_angles`, `rope_cos_sin`, `apply_rope` and Meta's three functions; the building
blocks `rotate_pairs`, `expand_to_pairs` and `rotate_quarter`, which a model calls in every layer at every step,
take their arguments unchecked.
"""

from __future__ import annotations

import torch
from numpy.typing import ArrayLike

from . import frequencies
from ._validate import (
    arguments,
    checked_by,
    compute_dtype,
    inv_freq_or_base_arguments,
    optional,
    refuse,
    require_base,
    require_bthd,
    require_device,
    require_even_dim,
    require_float_dtype,
    require_layout,
    require_positions,
    require_positive_int,
    require_positive_real,
    require_rotary_dim,
    require_token_positions,
    require_vector,
)
from .frequencies import DEFAULT_BASE
from .scaling import RopeScaling


def rope_angles_arguments(a) -> None:
    require_positions(a["positions"])
    require_even_dim(a["d"], "d")
    inv_freq_or_base_arguments(a, a["d"])


def scaling_arguments(a, positions: torch.Tensor) -> None:
    """attention_factor; or scaling, a RopeScaling whose rule gives the frequencies and that factor both."""
    require_positive_real(a["attention_factor"], "attention_factor")
    scaling = a["scaling"]
    if scaling is None:
        return
    if not isinstance(scaling, RopeScaling):
        refuse("scaling", "be a rope_lib.RopeScaling or None", type(scaling).__name__, TypeError)
    if a["inv_freq"] is not None or a["attention_factor"] != 1:
        given = "inv_freq" if a["inv_freq"] is not None else "attention_factor"
        raise ValueError(f"pass scaling or {given}, not both: scaling's rule gives the frequencies and the factor on cos and sin")
    if scaling.is_dynamic and not (positions.numel() and int(positions.max()) >= 0):
        raise ValueError(f"positions must include one ≥ 0: scaling method {scaling.method!r} takes its frequencies at the "
                         "length the positions reach (the largest + 1)")


@checked_by(rope_angles_arguments)
def rope_angles(
    positions: torch.Tensor | range | list[int],
    d: int,
    *,
    base: float = DEFAULT_BASE,
    inv_freq: ArrayLike | None = None,
) -> torch.Tensor:
    """m·θ_i in float64, shape positions.shape + (d/2,), on the
    positions' device.

    inv_freq: optional d/2 frequencies that replace base^(−2i/d),
    e.g. a context-extension rule of `rope_lib.scaling` (chapter
    "Longer contexts").
    """
    positions = torch.as_tensor(positions)  # a range or a list of ints too
    if inv_freq is None:
        inv_freq = frequencies.inv_freq(d, base)
    # a tensor keeps its graph
    theta = torch.as_tensor(
        inv_freq, dtype=torch.float64, device=positions.device
    )
    m = positions.to(torch.float64)[..., None]  # (..., 1)
    return m * theta  # (..., D/2) float64


def rope_cos_sin_arguments(a) -> None:
    scaling_arguments(a, require_positions(a["positions"]))
    rope_angles_arguments(a)
    require_float_dtype(a["dtype"])


@checked_by(rope_cos_sin_arguments)
def rope_cos_sin(
    positions: torch.Tensor | range | list[int],
    d: int,
    *,
    base: float = DEFAULT_BASE,
    dtype: torch.dtype = torch.float32,
    inv_freq: ArrayLike | None = None,
    attention_factor: float = 1.0,
    scaling: RopeScaling | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """cos(m·θ_i) and sin(m·θ_i), each shape positions.shape + (d/2,),
    cast to `dtype` at the end.

    Both are multiplied by attention_factor (1 but for YaRN and LongRoPE),
    in float64, as Hugging Face does. scaling: a `RopeScaling` gives both
    θ'_i (at the length the positions reach) and the factor.
    """
    if scaling is not None:
        positions = torch.as_tensor(positions)
        longest = int(positions.max()) + 1 if scaling.is_dynamic else None
        inv_freq = scaling.frequencies(d, base, longest)
        attention_factor = scaling.attention_factor
    a = rope_angles(positions, d, base=base, inv_freq=inv_freq)
    cos = (a.cos() * attention_factor).to(dtype)
    sin = (a.sin() * attention_factor).to(dtype)
    return cos, sin


def expand_to_pairs(t: torch.Tensor, layout: str) -> torch.Tensor:
    """Repeat a per-pair value (..., D/2) to both coordinates of its pair (..., D).
    Arguments are not checked: `apply_rope` is the checked entry."""
    if layout == "interleaved":
        return t.repeat_interleave(2, dim=-1)  # [c0, c0, c1, c1, …]
    return torch.cat([t, t], dim=-1)  # [c0, c1, …, c0, c1, …]


def rotate_quarter(x: torch.Tensor, layout: str) -> torch.Tensor:
    """Each pair (a, b) → (−b, a): a quarter turn, the "rotate(x)" of
    eq. 34.

    In the half layout this is Hugging Face's `rotate_half`. Arguments
    are not checked: `apply_rope` is the checked entry.
    """
    if layout == "interleaved":
        a, b = x[..., 0::2], x[..., 1::2]
        return torch.stack([-b, a], dim=-1).flatten(-2)
    a, b = x.chunk(2, dim=-1)
    return torch.cat([-b, a], dim=-1)


def rotate_pairs(
    x: torch.Tensor,
    cos: torch.Tensor,
    sin: torch.Tensor,
    *,
    layout: str = "interleaved",
    rotary_dim: int | None = None,
) -> torch.Tensor:
    """RoFormer eq. 34, x⊗cos + rotate(x)⊗sin, on x (B, T, H, D) with
    tables (T, D/2) or (B, T, D/2).

    Computed in float32 (float64 for float64 x) and returned in x's dtype.
    rotary_dim: rotate only the first rotary_dim coordinates of each head
    (tables (T, rotary_dim/2)) and pass the rest through, as GPT-NeoX and
    GPT-J do. Arguments are not checked: `apply_rope` is the checked entry
    (`rope_lib.kernels.rotate_pairs_fused` checks tables it is handed).
    """
    rot = x.shape[-1] if rotary_dim is None else rotary_dim
    # (T, 1, rot) or (B, T, 1, rot): one table for every head
    c = expand_to_pairs(cos, layout).unsqueeze(-2)
    s = expand_to_pairs(sin, layout).unsqueeze(-2)
    xc = x.to(compute_dtype(x.dtype))
    out = xc[..., :rot] * c + rotate_quarter(xc[..., :rot], layout) * s
    if rot < x.shape[-1]:
        # the other D − rot coordinates pass through
        out = torch.cat([out, xc[..., rot:]], dim=-1)
    return out.to(x.dtype)  # (B, T, H, D)


ORDERS = ("BTHD", "BHTD")
"""How apply_rope reads x's axes: (B, T, H, D), as Meta and gpt-fast hold heads, or (B, H, T, D), as Hugging Face does."""


def apply_rope_arguments(a) -> None:
    x, order = require_bthd(a["x"], "x"), a["order"]
    if order is not None and order not in ORDERS:
        refuse("order", f"be one of {ORDERS} or None", repr(order))
    if order is None and x.shape[1] == x.shape[2] > 1:
        refuse("order", "be named, 'BTHD' or 'BHTD' (Hugging Face's (B, H, T, D)), when x has as many heads as tokens",
               f"None for x of shape {tuple(x.shape)}")
    batch, seq = x.shape[0], x.shape[2 if order == "BHTD" else 1]
    given = require_positions(a["positions"], device=x.device).shape
    if order is None and given[-1:] == (x.shape[2],) != (seq,):
        refuse("positions", f"have shape (T,) = ({seq},) for x of shape (B, T, H, D); if x is Hugging Face's "
               "(B, H, T, D), pass order='BHTD'", tuple(given))
    positions = require_token_positions(a["positions"], batch, seq, x.device)
    require_layout(a["layout"])
    scaling_arguments(a, positions)
    inv_freq_or_base_arguments(a, require_rotary_dim(a["rotary_dim"], x.shape[-1]))


@checked_by(apply_rope_arguments)
def apply_rope(
    x: torch.Tensor,
    positions: torch.Tensor | range | list[int],
    *,
    layout: str,
    order: str | None = None,
    base: float = DEFAULT_BASE,
    inv_freq: ArrayLike | None = None,
    attention_factor: float = 1.0,
    rotary_dim: int | None = None,
    scaling: RopeScaling | None = None,
) -> torch.Tensor:
    """Rotate every head vector of x to its position.

    layout, which has no default: "interleaved" pairs coordinates (2i, 2i+1), as Meta's LLaMA does; "half" pairs
    (i, i + D/2), as Hugging Face does. order: x is (B, T, H, D) ("BTHD", as Meta and gpt-fast hold heads) or
    (B, H, T, D) ("BHTD", as Hugging Face does); None reads (B, T, H, D), and is refused when H = T, where the
    axes cannot tell. positions: integers, shape (T,) or (B, T), on x's device (a range or list is accepted too).
    scaling: a `RopeScaling` whose rule gives the frequencies and the factor on cos and sin (YaRN's, say);
    or, by hand, inv_freq and attention_factor (see `rope_cos_sin`); rotary_dim: see `rotate_pairs`.
    Without either the frequencies are base^(−2i/rotary_dim).
    This is the eager form, the reference; `rope_lib.kernels.rotate_pairs_fused` writes the
    same rotation in one pass into a buffer, or in place.
    """
    positions = torch.as_tensor(positions, device=x.device)  # a range or a list too
    heads_first = order == "BHTD"
    x = x.transpose(1, 2) if heads_first else x  # (B, T, H, D)
    rot = x.shape[-1] if rotary_dim is None else rotary_dim
    cos, sin = rope_cos_sin(
        positions, rot, base=base, dtype=compute_dtype(x.dtype), inv_freq=inv_freq, attention_factor=attention_factor, scaling=scaling
    )
    out = rotate_pairs(x, cos, sin, layout=layout, rotary_dim=rotary_dim)
    return out.transpose(1, 2) if heads_first else out


def precompute_freqs_cis_arguments(a) -> None:
    arguments(dim=require_even_dim, end=require_positive_int, theta=require_base, device=optional(require_device))(a)
    if a["dtype"] not in (torch.complex64, torch.complex128):
        refuse("dtype", "be torch.complex64 or torch.complex128", a["dtype"], TypeError)
    if a["inv_freq"] is not None:
        require_vector(a["inv_freq"], a["dim"] // 2)


@checked_by(precompute_freqs_cis_arguments)
def precompute_freqs_cis(
    dim: int,
    end: int,
    theta: float = DEFAULT_BASE,
    *,
    dtype: torch.dtype = torch.complex64,
    device: torch.device | str | None = None,
    inv_freq: ArrayLike | None = None,
) -> torch.Tensor:
    """e^{i·m·θ_j} for m = 0 … end−1, shape (end, dim/2): Meta's table of unit complex numbers.

    Use dtype=torch.complex128 to rotate float64 inputs; inv_freq replaces the
    frequencies (Meta's use_scaled=True is inv_freq=rope_lib.scaling.llama3_inv_freq(dim, theta)).
    theta is the base: this function keeps Meta's signature, to be read beside Meta's (rope_lib's own functions
    call it `base`).
    """
    a = rope_angles(torch.arange(end, device=device), dim, base=theta, inv_freq=inv_freq)  # (end, D/2) float64
    return torch.polar(torch.ones_like(a), a).to(dtype)  # (end, D/2)


def reshape_for_broadcast_arguments(a) -> None:
    freqs_cis, x = a["freqs_cis"], a["x"]
    want = (x.shape[1], x.shape[-1] // 2)
    if not isinstance(freqs_cis, torch.Tensor) or not freqs_cis.is_complex():
        refuse("freqs_cis", "be a complex tensor from precompute_freqs_cis", getattr(freqs_cis, "dtype", type(freqs_cis).__name__), TypeError)
    if tuple(freqs_cis.shape) != want:
        refuse("freqs_cis", f"have shape (T, D/2) = {want} for x of shape {tuple(x.shape)}",
               f"{tuple(freqs_cis.shape)}; slice the table as freqs_cis[start_pos : start_pos + T]")


@checked_by(reshape_for_broadcast_arguments)
def reshape_for_broadcast(freqs_cis: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """(T, D/2) table → (1, T, 1, D/2) so it multiplies x (B, T, H, D) viewed as complex (B, T, H, D/2)."""
    return freqs_cis.view(1, x.shape[1], 1, x.shape[-1] // 2)


def apply_rotary_emb_arguments(a) -> None:
    xq, xk, freqs_cis = require_bthd(a["xq"], "xq"), require_bthd(a["xk"], "xk"), a["freqs_cis"]
    if xq.dtype != xk.dtype or xq.device != xk.device:
        raise TypeError(f"xq and xk must share dtype and device, got {xq.dtype} on {xq.device} and {xk.dtype} on {xk.device}")
    if xq.shape[:2] != xk.shape[:2] or xq.shape[-1] != xk.shape[-1]:
        raise ValueError(f"xq and xk must share B, T and D, got shapes {tuple(xq.shape)} and {tuple(xk.shape)}")
    want = torch.complex128 if xq.dtype == torch.float64 else torch.complex64
    if isinstance(freqs_cis, torch.Tensor) and freqs_cis.is_complex() and freqs_cis.dtype != want:
        refuse("freqs_cis", f"have dtype {want} to rotate inputs of dtype {xq.dtype}", freqs_cis.dtype, TypeError)
    if isinstance(freqs_cis, torch.Tensor) and freqs_cis.device != xq.device:
        refuse("freqs_cis", f"be on the inputs' device {xq.device}", freqs_cis.device)
    reshape_for_broadcast_arguments({"freqs_cis": freqs_cis, "x": xq})


@checked_by(apply_rotary_emb_arguments)
def apply_rotary_emb(xq: torch.Tensor, xk: torch.Tensor, freqs_cis: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Rotate queries and keys (B, T, H, D) by viewing each adjacent pair as one complex number
    and multiplying by e^{i·m·θ_j} (interleaved layout). Returns tensors of the inputs' dtype."""
    f = reshape_for_broadcast(freqs_cis, xq)  # (1, T, 1, D/2)

    def rotate(x: torch.Tensor) -> torch.Tensor:
        pairs = x.to(compute_dtype(x.dtype)).contiguous().unflatten(-1, (-1, 2))  # (B, T, H, D/2, 2)
        return torch.view_as_real(torch.view_as_complex(pairs) * f).flatten(-2).to(x.dtype)  # (B, T, H, D)

    return rotate(xq), rotate(xk)
