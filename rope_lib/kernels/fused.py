"""RoPE in one pass over memory: fused kernels for `rotate_pairs` (chapter "Implementations and speed").

RoFormer eq. 34 reads each element of a query or key once, writes it once and
does three flops on it, so its speed limit is a plain copy of the same bytes.
The eager form misses that limit by a wide margin: it allocates temporaries,
makes a float32 copy of a bf16 input and walks memory several times. A fused
kernel does the whole formula in one pass, optionally into a buffer the caller
already owns (`out=`), or over the input itself (`out=x`).

The kernels, in the order `kernels_for` prefers them:

* `native`, on the CPU for float32, float64 and bf16, either layout: the C++ loop
  of `rope_lib.kernels.cpu_kernel`, written pair by pair, which the C++ compiler
  vectorises; it runs at copy speed and gives the eager form's results bit for bit;
* `half`, the half layout, any dtype: eq. 34 with the two halves as a size-2 axis,
  compiled by `torch.compile` (C++ on the CPU, Triton on CUDA). Its inner loop
  runs over contiguous coordinates, which vectorises;
* `complex`, interleaved float32 or float64: each pair is one complex number, and
  the rotation is one complex product written into `out` (an ATen kernel: Meta's
  form, minus its temporaries; it needs no compiler);
* `bf16_words`, interleaved bf16: each pair is one 32-bit word, and bf16 is the
  upper half of a float32, so the kernel splits words into exact float32 values and
  packs the rounded results back with integer operations; compiled;
* `pair_axis`, interleaved, any dtype and strides: the pair axis written as a
  size-2 innermost axis and compiled. Correct, but it stays scalar.

How the formula is written decides whether `torch.compile` turns it into vector
code, which is why its kernels depend on the layout. When no compiler is
available for the device, or autograd has to record the rotation (the kernels
are for inference), `rope_lib.rope.rotate_pairs` runs instead (`eager`); it is also
the reference the kernels are tested against. Autograd cannot record a write
into a buffer the caller gives, so, as with torch's own `out=` functions,
`out=` while grad mode is on and an argument requires grad is an error; a
kernel's write into `out` bumps its version counter, as an in-place write does.
"""

from __future__ import annotations

import functools
import sys
import types

import torch

from .._validate import checked_by, compute_dtype, refuse, require_bthd, require_layout, require_rotary_dim
from ..rope import rotate_pairs
from . import cpu_kernel

BF16_LOW_HALF = 0xFFFF
"""The bits of a 32-bit word that hold the first bf16 of a pair (little-endian memory)."""
BF16_HIGH_HALF = -65536
"""0xFFFF0000 as a signed int32: the bits that hold the second bf16 of a pair."""
BF16_ROUND_HALF = 0x7FFF
"""Added, with the lowest kept bit, to a float32's bits to round it to the nearest bf16 (ties to even)."""


def fused_kernels_available(device) -> bool:
    """Whether torch.compile can build kernels here: a C++ compiler for the CPU, Triton for CUDA."""
    return _compiler_found(torch.device(device).type)


@functools.lru_cache(maxsize=None)
def _compiler_found(kind: str) -> bool:
    """Looked up once per device type and process: compilers do not come and go while Python runs."""
    if kind == "cpu":
        return cpu_kernel.cxx_compiler() is not None
    if kind == "cuda":
        from torch.utils._triton import has_triton

        return has_triton()
    return False


def _half_kernel(x, cos, sin, out):
    """Eq. 34 in the half layout, the halves as a size-2 axis:
    out = x·cos + flip(x)·(∓sin)."""
    # (B, T, H, 2, D/2): [first halves, second halves]
    pairs = x.unflatten(-1, (2, -1)).to(cos.dtype)
    sign = torch.tensor([-1.0, 1.0], dtype=cos.dtype, device=x.device)
    sign = sign[:, None]  # (2, 1): −sin on top, +sin below
    c = cos.unsqueeze(-2).unsqueeze(-2)  # (…, T, 1, 1, D/2)
    s = sin.unsqueeze(-2).unsqueeze(-2)  # (…, T, 1, 1, D/2)
    turned = pairs * c + pairs.flip(-2) * (s * sign)  # (B, T, H, 2, D/2)
    out.unflatten(-1, (2, -1)).copy_(turned.to(out.dtype))


def _pair_axis_kernel(x, cos, sin, out):
    """Eq. 34 with adjacent pairs as a size-2 innermost axis: correct for any dtype, but scalar code."""
    pairs = x.unflatten(-1, (-1, 2)).to(cos.dtype)  # (B, T, H, D/2, 2)
    sign = torch.tensor([-1.0, 1.0], dtype=cos.dtype, device=x.device)  # (2,)
    c, s = cos.unsqueeze(-2).unsqueeze(-1), sin.unsqueeze(-2).unsqueeze(-1)  # (…, T, 1, D/2, 1)
    turned = pairs * c + pairs.flip(-1) * (s * sign)  # (B, T, H, D/2, 2)
    out.unflatten(-1, (-1, 2)).copy_(turned.to(out.dtype))


def _bf16_word_kernel(words, cos, sin, out_words):
    """Adjacent bf16 pairs (a, b) read as one int32 word each
    (B, T, H, D/2); a bf16 is the upper 16 bits of a float32, so shifting
    and masking give a and b exactly, as float32."""
    # (B, T, H, D/2) each: the low half, moved up; the high half, in place
    a = (words << 16).view(torch.float32)
    b = (words & BF16_HIGH_HALF).view(torch.float32)
    c, s = cos.unsqueeze(-2), sin.unsqueeze(-2)  # (…, T, 1, D/2)
    a_turned, b_turned = a * c - b * s, b * c + a * s

    # float32 → its nearest bf16 in the upper 16 bits, ties to even
    def rounded_bits(v):
        bits = v.view(torch.int32)
        return bits + BF16_ROUND_HALF + ((bits >> 16) & 1)

    high = rounded_bits(b_turned) & BF16_HIGH_HALF
    low = (rounded_bits(a_turned) >> 16) & BF16_LOW_HALF
    out_words.copy_(high | low)


KERNELS = {"half": _half_kernel, "pair_axis": _pair_axis_kernel, "bf16_words": _bf16_word_kernel}
"""The compiled kernels by name; `complex` (fp32/fp64 interleaved) is an ATen product and needs no compiler."""


@functools.lru_cache(maxsize=None)
def compiled_kernel(name: str, dtype: torch.dtype, device_type: str):
    """torch.compile of KERNELS[name] for one dtype and device type.

    Dynamo keeps compiled graphs on the function's code object and allows 8 per
    code object; each key gets its own copy of the code, so dtypes and devices do
    not compete for that budget. Shapes are static but for T (marked dynamic by
    `_run`), so prefill lengths do not each compile again.
    """
    kernel = KERNELS[name]
    code = kernel.__code__.replace(co_name=f"{kernel.__name__}_{str(dtype).removeprefix('torch.')}_{device_type}")
    return torch.compile(types.FunctionType(code, kernel.__globals__, code.co_name), dynamic=None)


def _run(name: str, x: torch.Tensor, cos, sin, out: torch.Tensor) -> None:
    """Call the compiled kernel `name` (x and out may be views of x's kind: int32 words for bf16)."""
    for t in (x, cos, sin, out):
        torch._dynamo.maybe_mark_dynamic(t, t.dim() - 3 if t is x or t is out else t.dim() - 2)  # the T axis
    compiled_kernel(name, x.dtype, x.device.type)(x, cos, sin, out)


def _as_complex(t: torch.Tensor) -> torch.Tensor:
    """(…, D) real with adjacent pairs → (…, D/2) complex, a view of the same memory."""
    return torch.view_as_complex(t.unflatten(-1, (-1, 2)))


def _pairs_are_words(t: torch.Tensor) -> bool:
    """Each adjacent pair sits in memory as one aligned unit of twice the element size."""
    return t.stride(-1) == 1 and all(s % 2 == 0 for s in t.stride()[:-1]) and t.storage_offset() % 2 == 0


def kernels_for(x: torch.Tensor, out: torch.Tensor, layout: str) -> list[str]:
    """The kernels that can rotate x into out, fastest first: 'native', 'half', 'complex', 'bf16_words', 'pair_axis', 'eager'."""
    words = _pairs_are_words(x) and _pairs_are_words(out)
    little_endian = sys.byteorder == "little"  # the first bf16 of a pair is the low half of its word
    compiler = fused_kernels_available(x.device)
    names = ["native"] if compiler and cpu_kernel.handles(x, out) else []
    # torch.compile (2.13) fails, once T is dynamic, on x and out that are two tensors in one buffer (the halves of each row)
    compiled = compiler and (out is x or x.untyped_storage().data_ptr() != out.untyped_storage().data_ptr())
    if layout == "half":
        names += ["half"] if compiled else []
    else:
        names += ["complex"] if words and x.dtype in (torch.float32, torch.float64) else []
        if compiled:
            names += (["bf16_words"] if words and little_endian and x.dtype == torch.bfloat16 else []) + ["pair_axis"]
    return names + ["eager"]


def kernel_name(x: torch.Tensor, out: torch.Tensor, layout: str) -> str:
    """The kernel `rotate_pairs_fused` uses for x, out and layout unless told otherwise."""
    return kernels_for(x, out, layout)[0]


def require_tables(x: torch.Tensor, cos, sin, rotary_dim: int | None) -> None:
    """cos and sin for x (B, T, H, D): one shape, (T, rot/2) or (B, T, rot/2), x's compute dtype, x's device."""
    batch, seq, _, dim = x.shape
    half = rotary_dim // 2 if rotary_dim is not None else dim // 2
    want = compute_dtype(x.dtype)
    for name, table in (("cos", cos), ("sin", sin)):
        if not isinstance(table, torch.Tensor):
            refuse(name, "be a torch.Tensor", type(table).__name__, TypeError)
        if table.shape not in ((seq, half), (batch, seq, half)):
            d2 = "D/2" if rotary_dim is None else "rotary_dim/2"
            refuse(name, f"have shape (T, {d2}) = ({seq}, {half}) or (B, T, {d2}) = ({batch}, {seq}, {half}) to match x of "
                   f"shape {tuple(x.shape)}", tuple(table.shape))
        if table.device != x.device:
            refuse(name, f"be on x's device {x.device}", table.device)
        if table.dtype != want:
            refuse(name, f"have dtype {want} to rotate x of dtype {x.dtype}", table.dtype, TypeError)
    if cos.shape != sin.shape:
        refuse("cos and sin", "have the same shape", f"{tuple(cos.shape)} and {tuple(sin.shape)}")


def _byte_span(t: torch.Tensor) -> tuple[int, int]:  # the first and one past the last byte t can touch
    reach = sum((size - 1) * stride for size, stride in zip(t.shape, t.stride()) if size > 0)
    return t.data_ptr(), t.data_ptr() + (reach + 1) * t.element_size()


def share_memory(a: torch.Tensor, b: torch.Tensor) -> bool:
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


def require_out(out, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> None:
    """A buffer for the rotation of x: x's shape, dtype and device, no element written twice, none of cos or sin
    (they are read while out is written), and either none of x or x itself (in place)."""
    if not isinstance(out, torch.Tensor):
        refuse("out", "be a torch.Tensor or None", type(out).__name__, TypeError)
    if out.shape != x.shape or out.dtype != x.dtype or out.device != x.device:
        refuse("out", f"match x: shape {tuple(x.shape)}, dtype {x.dtype}, device {x.device}",
               f"shape {tuple(out.shape)}, dtype {out.dtype}, device {out.device}")
    if any(stride == 0 and size > 1 for size, stride in zip(out.shape, out.stride())):
        refuse("out", "not be an expanded tensor (stride 0 writes one element many times)", f"strides {out.stride()}")
    in_place = out.data_ptr() == x.data_ptr() and out.stride() == x.stride()
    if not in_place and share_memory(out, x):
        raise ValueError("out overlaps x without being x: pass out=x to rotate in place, or a separate buffer")
    for name, table in (("cos", cos), ("sin", sin)):
        if share_memory(out, table):
            raise ValueError(f"out overlaps {name}: the rotation would overwrite the table while reading it; pass a separate buffer")


def rotate_pairs_fused_arguments(a) -> None:
    """x (B, T, H, D), its layout and rotary_dim, tables for it, and out: None or a buffer autograd need not see."""
    x, cos, sin, out = require_bthd(a["x"], "x"), a["cos"], a["sin"], a["out"]
    require_layout(a["layout"])
    require_rotary_dim(a["rotary_dim"], x.shape[-1])
    require_tables(x, cos, sin, a["rotary_dim"])
    if out is None:
        return
    require_out(out, x, cos, sin)
    grad_args = [name for name, t in (("x", x), ("cos", cos), ("sin", sin), ("out", out)) if t.requires_grad]
    if torch.is_grad_enabled() and grad_args:
        raise RuntimeError(
            "rotate_pairs_fused(): autograd cannot record a rotation written into out=, but it was given arguments that "
            f"require grad: {', '.join(grad_args)}; pass out=None for a differentiable result, or call it under torch.no_grad()"
        )


@checked_by(rotate_pairs_fused_arguments)
def rotate_pairs_fused(
    x: torch.Tensor,
    cos: torch.Tensor,
    sin: torch.Tensor,
    *,
    layout: str = "interleaved",
    rotary_dim: int | None = None,
    out: torch.Tensor | None = None,
    kernel: str | None = None,
) -> torch.Tensor:
    """`rope_lib.rope.rotate_pairs` (RoFormer eq. 34) in one pass over memory, same results, with its arguments checked.

    x (B, T, H, D); cos, sin (T, rot/2) or (B, T, rot/2) in float32 (float64 for float64 x).
    out: where to write, same shape, dtype and device as x (a slice of a KV cache, say), sharing no
    element with cos or sin; out=x rotates in place; None allocates. Returns out.
    kernel: one of `kernels_for(x, out, layout)` to compare kernels; None takes the fastest.
    When autograd has to record the rotation, the eager form runs; as for torch's own out= functions,
    autograd cannot record a write into a given out, so that is then an error (use torch.no_grad()).
    """
    rot = x.shape[-1] if rotary_dim is None else rotary_dim
    if out is None:
        out = torch.empty_like(x, memory_format=torch.contiguous_format)
    in_place = out.data_ptr() == x.data_ptr() and out.stride() == x.stride()
    needs_grad = torch.is_grad_enabled() and any(t.requires_grad for t in (x, cos, sin))  # out=None, as checked
    head = x[..., :rot]  # (B, T, H, rot): the coordinates that turn
    head_out = head if in_place else out[..., :rot]  # in place: one tensor object, so the compiler sees the aliasing
    usable = ["eager"] if needs_grad else kernels_for(head, head_out, layout)  # the kernels are for inference: no autograd
    if kernel is not None and kernel not in usable:
        raise ValueError(f"kernel must be one of {usable} for this x, out and layout={layout!r}, got {kernel!r}")
    name = usable[0] if kernel is None else kernel
    if name == "native":
        cpu_kernel.rotate(head, cos, sin, head_out, layout)
    elif name == "complex":
        table = torch.complex(cos, sin).unsqueeze(-2)  # (…, T, 1, rot/2): e^{i·m·θ_j}
        torch.mul(_as_complex(head), table, out=_as_complex(head_out))  # (B, T, H, rot/2), Meta's product
    elif name == "bf16_words":
        words = head.view(torch.int32)  # (B, T, H, rot/2): one word per pair
        _run(name, words, cos, sin, words if in_place else head_out.view(torch.int32))
    elif name == "eager":
        head_out.copy_(rotate_pairs(head, cos, sin, layout=layout))
    else:
        _run(name, head, cos, sin, head_out)
    if rot < x.shape[-1] and not in_place:
        out[..., rot:].copy_(x[..., rot:])  # the other D − rot coordinates pass through
    return out
