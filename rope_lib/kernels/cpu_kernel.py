"""RoPE on the CPU in one pass over memory, both layouts: rope_lib/kernels/cpu_kernel.cpp, compiled on first use.

The loop is written pair by pair: read a and b, write a·cos − b·sin and
b·cos + a·sin. The C++ compiler vectorises it over the pairs of a head in
either layout and OpenMP splits the tokens between threads, so it runs at the
speed of a copy; because each step reads its pair before writing it, the output
may be the input itself. Its arithmetic is that of `rope_lib.rope.rotate_pairs`
(float32, or float64 for float64 input, no fused multiply-add), so the results
are identical to the eager form's, bit for bit (a NaN stays a NaN, though not
always with the same bits: torch's own conversions to bf16 disagree on those).

When one call reads and writes more bytes than the private caches of its
threads hold, its output leaves them before anything reads it; the kernel then
writes it with non-temporal stores (on x86), which do not first read the
destination's old contents into the cache, and moves a third fewer bytes than a
copy does.

The source is compiled once per machine, with the C++ compiler torch.compile
uses too, into `$XDG_CACHE_HOME/rope_lib` (default `~/.cache/rope_lib`), and
loaded with ctypes.
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import os
import platform
import shutil
import subprocess
import tempfile
import warnings
from pathlib import Path

import torch

SOURCE = Path(__file__).with_name("cpu_kernel.cpp")
COMPILERS = ("g++", "c++", "clang++")
FLAGS = ("-O3", "-march=native", "-ffp-contract=off", "-fopenmp", "-shared", "-fPIC")
"""-march=native: vector instructions of this processor; -ffp-contract=off: no fused multiply-add, as in eager torch."""
DTYPES = {torch.float32: "float32", torch.float64: "float64", torch.bfloat16: "bfloat16"}
"""The dtypes the kernel handles, and the suffix of each one's entry point."""

_INT64_3 = ctypes.c_int64 * 3
_INT64_2 = ctypes.c_int64 * 2
_ARGTYPES = [ctypes.c_void_p] * 4 + [ctypes.c_int64] * 4 + [ctypes.c_void_p] * 3 + [ctypes.c_int] * 3
CACHE_INFO = Path("/sys/devices/system/cpu/cpu0/cache")
_SIZE_UNITS = {"K": 2**10, "M": 2**20, "G": 2**30}


def cxx_compiler() -> str | None:
    """The first C++ compiler found on PATH, or None."""
    return next((path for path in map(shutil.which, COMPILERS) if path), None)


def _processor() -> str:
    """What identifies this processor's instruction set: /proc/cpuinfo's model and flags where there is one."""
    try:
        with open("/proc/cpuinfo") as info:
            lines = [line for line in info if line.startswith(("model name", "flags", "Features"))]
        return "".join(dict.fromkeys(lines))
    except OSError:
        return platform.processor()


@functools.lru_cache(maxsize=None)
def private_cache_bytes() -> int | None:
    """Size of the largest cache of CPU 0 that no other CPU shares (its L2 on most processors), from Linux's
    /sys; None where the system does not say."""
    sizes = {}
    for index in CACHE_INFO.glob("index*"):
        try:
            level, size = (index / "level").read_text().strip(), (index / "size").read_text().strip()
            shared = (index / "shared_cpu_list").read_text().strip()
        except OSError:
            continue
        if level.isdigit() and size[:-1].isdigit() and size[-1] in _SIZE_UNITS and shared.isdigit():  # one CPU: "0"
            sizes[int(level)] = int(size[:-1]) * _SIZE_UNITS[size[-1]]
    return sizes[max(sizes)] if sizes else None


def streams(x: torch.Tensor, out: torch.Tensor) -> bool:
    """Whether rotating x into out writes with non-temporal stores: out is not x, and the bytes read and written
    together are at least what the private caches of the threads that share the work hold. Past that the output
    leaves them before anything reads it, and a cache shared with other cores (on a virtual machine, with other
    machines too) is not counted on. A machine whose cache sizes are unknown never streams."""
    private = private_cache_bytes()
    moved = 2 * x.numel() * x.element_size()
    return out.data_ptr() != x.data_ptr() and private is not None and moved >= private * torch.get_num_threads()


def cache_dir() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "rope_lib"


@functools.lru_cache(maxsize=None)
def library() -> ctypes.CDLL | None:
    """The compiled kernel, built on the first call in the first process that needs it; None without a compiler.

    A compiler that fails is reported with a RuntimeWarning that quotes it, and the
    kernel is then unavailable (rope_lib.kernels.fused falls back to its other kernels).
    """
    compiler = cxx_compiler()
    if compiler is None:
        return None
    source = SOURCE.read_bytes()
    key = hashlib.sha256(repr((source, compiler, FLAGS, platform.machine(), _processor())).encode()).hexdigest()[:16]
    target = cache_dir() / f"cpu_kernel-{key}.so"
    if not target.is_file():
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=target.parent) as scratch:  # built aside, then moved: no half-written library
            built = Path(scratch) / target.name
            command = [compiler, *FLAGS, str(SOURCE), "-o", str(built)]
            result = subprocess.run(command, capture_output=True, text=True)
            if result.returncode != 0:
                warnings.warn(f"rope_lib could not compile its CPU kernel with `{' '.join(command)}`:\n{result.stderr.strip()}", RuntimeWarning, stacklevel=2)
                return None
            os.replace(built, target)
    loaded = ctypes.CDLL(str(target))
    for suffix in DTYPES.values():
        getattr(loaded, f"rope_rotate_{suffix}").argtypes = _ARGTYPES
    return loaded


def handles(x: torch.Tensor, out: torch.Tensor) -> bool:
    """Whether the kernel can rotate x into out: CPU tensors of a dtype in DTYPES with contiguous coordinates."""
    return x.device.type == "cpu" and x.dtype in DTYPES and x.stride(-1) == 1 and out.stride(-1) == 1 and library() is not None


def rotate(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, out: torch.Tensor, layout: str) -> None:
    """Write RoFormer eq. 34 of x into out (which may be x): x, out (B, T, H, rot); cos, sin (T, rot/2) or (B, T, rot/2).

    The caller has checked the arguments (`rotate_pairs_fused_arguments` in `fused`) and `handles(x, out)`.
    The write goes behind autograd's back, so out's version counter is bumped, as torch's in-place writes do:
    a copy of out saved for backward is then known to be stale.
    """
    batch, seq, heads, rot = x.shape
    # One pair of strides serves both tables: a (T, rot/2) table beside a (B, T, rot/2) one is spread to (B, T, rot/2)
    cos, sin = (table.contiguous() for table in torch.broadcast_tensors(cos, sin))  # (…, T, rot/2), rows one after the other
    table_strides = _INT64_2(cos.stride(0) if cos.dim() == 3 else 0, rot // 2)  # per batch entry, per token
    entry = getattr(library(), f"rope_rotate_{DTYPES[x.dtype]}")
    entry(
        x.data_ptr(), out.data_ptr(), cos.data_ptr(), sin.data_ptr(),
        batch, seq, heads, rot // 2,
        _INT64_3(*x.stride()[:3]), _INT64_3(*out.stride()[:3]), table_strides,
        int(layout == "interleaved"), torch.get_num_threads(), int(streams(x, out)),
    )  # fmt: skip
    torch.autograd.graph.increment_version(out)
