"""RoPE on torch tensors, in two forms that agree with the matrix reference.

* the real elementwise form of RoFormer eq. 34, `apply_rope`, for either layout;
* the complex form with Meta's names and signatures, `precompute_freqs_cis`
  and `apply_rotary_emb` (RoFormer eq. 12 applied pair by pair).

Context extension plugs in through `inv_freq=` (rescaled frequencies from
`rope_lib.scaling`), `attention_factor=` (YaRN's multiplier of cos and sin) and
`rotary_dim=` (partial rotary: only the first rotary_dim coordinates turn).

Angles are always computed in float64 from integer positions and only the
cos/sin outputs are cast: in bf16, position 257 would round to 256.
Shapes: B batch, T tokens, H heads, D head dimension (chapter "Introduction").
"""

from __future__ import annotations

import torch

from . import _validate, frequencies
from ._validate import checked_by, compute_dtype
from .frequencies import DEFAULT_BASE


@checked_by(_validate.rope_angles_arguments)
def rope_angles(
    positions, dim: int, *, base: float = DEFAULT_BASE, inv_freq=None
) -> torch.Tensor:
    """m·θ_i in float64, shape positions.shape + (dim/2,), on the
    positions' device.

    inv_freq: optional dim/2 frequencies that replace base^(−2i/dim),
    e.g. a context-extension rule of `rope_lib.scaling` (chapter
    "Longer contexts").
    """
    if inv_freq is None:
        inv_freq = frequencies.inv_freq(dim, base)
    # a tensor keeps its graph
    freqs = torch.as_tensor(
        inv_freq, dtype=torch.float64, device=positions.device
    )
    m = positions.to(torch.float64)[..., None]  # (..., 1)
    return m * freqs  # (..., D/2) float64


@checked_by(_validate.rope_cos_sin_arguments)
def rope_cos_sin(
    positions,
    dim: int,
    *,
    base: float = DEFAULT_BASE,
    dtype: torch.dtype = torch.float32,
    inv_freq=None,
    attention_factor: float = 1.0,
):
    """cos(m·θ_i) and sin(m·θ_i), each shape positions.shape + (dim/2,),
    cast to `dtype` at the end.

    Both are multiplied by attention_factor (1 but for YaRN), in float64,
    as Hugging Face does.
    """
    a = rope_angles(positions, dim, base=base, inv_freq=inv_freq)
    cos = (a.cos() * attention_factor).to(dtype)
    sin = (a.sin() * attention_factor).to(dtype)
    return cos, sin


@checked_by(_validate.layout_arguments)
def expand_to_pairs(t: torch.Tensor, layout: str) -> torch.Tensor:
    """Repeat a per-pair value (..., D/2) to both coordinates of its pair (..., D)."""
    if layout == "interleaved":
        return t.repeat_interleave(2, dim=-1)  # [c0, c0, c1, c1, …]
    return torch.cat([t, t], dim=-1)  # [c0, c1, …, c0, c1, …]


@checked_by(_validate.layout_arguments)
def rotate_quarter(x: torch.Tensor, layout: str) -> torch.Tensor:
    """Each pair (a, b) → (−b, a): a quarter turn, the "rotate(x)" of
    eq. 34.

    In the half layout this is Hugging Face's `rotate_half`.
    """
    if layout == "interleaved":
        a, b = x[..., 0::2], x[..., 1::2]
        return torch.stack([-b, a], dim=-1).flatten(-2)
    a, b = x.chunk(2, dim=-1)
    return torch.cat([-b, a], dim=-1)


@checked_by(_validate.rotate_pairs_arguments)
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
    GPT-J do.
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


@checked_by(_validate.apply_rope_arguments)
def apply_rope(
    x: torch.Tensor,
    positions,
    *,
    base: float = DEFAULT_BASE,
    layout: str = "interleaved",
    inv_freq=None,
    attention_factor: float = 1.0,
    rotary_dim: int | None = None,
) -> torch.Tensor:
    """Rotate every head vector of x (B, T, H, D) to its position.

    positions: integers, shape (T,) or (B, T), on x's device (a range or list is accepted too).
    inv_freq, attention_factor, rotary_dim: see `rope_cos_sin` and `rotate_pairs`;
    without inv_freq the frequencies are base^(−2i/rotary_dim).
    This is the eager form, the reference; `rope_lib.kernels.rotate_pairs_fused` writes the
    same rotation in one pass into a buffer, or in place.
    """
    rot = x.shape[-1] if rotary_dim is None else rotary_dim
    cos, sin = rope_cos_sin(positions, rot, base=base, dtype=compute_dtype(x.dtype), inv_freq=inv_freq, attention_factor=attention_factor)
    return rotate_pairs(x, cos, sin, layout=layout, rotary_dim=rotary_dim)


@checked_by(_validate.precompute_freqs_cis_arguments)
def precompute_freqs_cis(
    dim: int, end: int, theta: float = DEFAULT_BASE, *, dtype: torch.dtype = torch.complex64, device=None, inv_freq=None
) -> torch.Tensor:
    """e^{i·m·θ_j} for m = 0 … end−1, shape (end, dim/2): Meta's table of unit complex numbers.

    Use dtype=torch.complex128 to rotate float64 inputs; inv_freq replaces the
    frequencies (Meta's use_scaled=True is inv_freq=rope_lib.llama3_inv_freq(dim, theta)).
    theta is the base: this function keeps Meta's signature, to be read beside Meta's (rope_lib's own functions
    call it `base`).
    """
    a = rope_angles(torch.arange(end, device=device), dim, base=theta, inv_freq=inv_freq)  # (end, D/2) float64
    return torch.polar(torch.ones_like(a), a).to(dtype)  # (end, D/2)


@checked_by(_validate.reshape_for_broadcast_arguments)
def reshape_for_broadcast(freqs_cis: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """(T, D/2) table → (1, T, 1, D/2) so it multiplies x (B, T, H, D) viewed as complex (B, T, H, D/2)."""
    return freqs_cis.view(1, x.shape[1], 1, x.shape[-1] // 2)


@checked_by(_validate.apply_rotary_emb_arguments)
def apply_rotary_emb(xq: torch.Tensor, xk: torch.Tensor, freqs_cis: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Rotate queries and keys (B, T, H, D) by viewing each adjacent pair as one complex number
    and multiplying by e^{i·m·θ_j} (interleaved layout). Returns tensors of the inputs' dtype."""
    f = reshape_for_broadcast(freqs_cis, xq)  # (1, T, 1, D/2)

    def rotate(x: torch.Tensor) -> torch.Tensor:
        pairs = x.to(compute_dtype(x.dtype)).contiguous().unflatten(-1, (-1, 2))  # (B, T, H, D/2, 2)
        return torch.view_as_real(torch.view_as_complex(pairs) * f).flatten(-2).to(x.dtype)  # (B, T, H, D)

    return rotate(xq), rotate(xk)
