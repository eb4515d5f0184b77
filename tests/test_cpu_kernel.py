"""rope_lib.cpu_kernel: the C++ loop gives rotate_pairs' results bit for bit (NaN as NaN), in both layouts, for every
memory arrangement it accepts (strided views, batched tables, partial rotary, in place, many threads),
and it is compiled once into the cache folder, with a clear warning when the compiler fails."""

import pytest
import torch

from rope_lib import rope_cos_sin
from rope_lib.rope import rotate_pairs
from rope_lib._validate import compute_dtype
from rope_lib.kernels import cpu_kernel
from rope_lib.kernels.fused import kernels_for, rotate_pairs_fused

pytestmark = pytest.mark.skipif(cpu_kernel.cxx_compiler() is None, reason="no C++ compiler on this machine")

DTYPES = [torch.float32, torch.float64, torch.bfloat16]
LAYOUTS = ["half", "interleaved"]


def random(shape, dtype, seed=0):
    return torch.randn(shape, generator=torch.Generator().manual_seed(seed)).to(dtype)


def native(x, cos, sin, layout, **kwargs):
    assert kernels_for(x, x if "out" not in kwargs else kwargs["out"], layout)[0] == "native"
    return rotate_pairs_fused(x, cos, sin, layout=layout, kernel="native", **kwargs)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_bit_for_bit_the_eager_rotation_on_many_threads(dtype, layout):
    """(2, 100, 8, 64): 51 200 pairs, above the size at which the loop is split between threads."""
    x = random((2, 100, 8, 64), dtype)
    cos, sin = rope_cos_sin(torch.arange(5000, 5100), 64, dtype=compute_dtype(dtype))
    assert torch.equal(native(x, cos, sin, layout), rotate_pairs(x, cos, sin, layout=layout))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_strided_views_batched_tables_partial_rotary_and_in_place(dtype, layout):
    heads_first = random((3, 4, 6, 32), dtype, seed=1)  # (B, H, T, D) in memory, as attention code often holds it
    x = heads_first.transpose(1, 2)  # (B, T, H, D) view with strides (H·T·D, D, T·D, 1)
    positions = torch.tensor([[0, 1, 2, 3, 4, 5], [7, 8, 9, 10, 11, 12], [100, 101, 102, 103, 104, 105]])  # (B, T)
    cos, sin = rope_cos_sin(positions, 16, dtype=compute_dtype(dtype))  # (B, T, 8): each sequence at its own offset
    want = rotate_pairs(x, cos, sin, layout=layout, rotary_dim=16)
    assert torch.equal(native(x, cos, sin, layout, rotary_dim=16), want)
    cache = torch.zeros(4, 10, 4, 32, dtype=dtype)  # a KV cache (max_batch, max_seq, H, D): rows 2…7 of three sequences
    native(x, cos, sin, layout, rotary_dim=16, out=cache[:3, 2:8])
    assert torch.equal(cache[:3, 2:8], want)
    assert cache[3].abs().sum() == 0 and cache[:, :2].abs().sum() == 0 and cache[:, 8:].abs().sum() == 0
    in_place = heads_first.clone().transpose(1, 2)
    native(in_place, cos, sin, layout, rotary_dim=16, out=in_place)
    assert torch.equal(in_place, want)


@pytest.mark.parametrize("batched", ["cos", "sin"])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_each_table_is_read_with_its_own_shape(layout, batched):
    """Called directly, with one table (T, D/2) and the other (B, T, D/2) (rotate_pairs_fused's checks refuse
    such a pair, cpu_kernel.rotate documents both shapes), each table is read by its own strides."""
    x = random((3, 4, 2, 16), torch.float32, seed=8)
    per_token = rope_cos_sin(torch.arange(4), 16)  # (T, 8)
    per_sequence = rope_cos_sin(torch.tensor([[0, 1, 2, 3], [10, 11, 12, 13], [100, 101, 102, 103]]), 16)  # (B, T, 8)
    cos, sin = (per_sequence[0], per_token[1]) if batched == "cos" else (per_token[0], per_sequence[1])
    want = rotate_pairs(x, cos.expand(3, 4, 8), sin.expand(3, 4, 8), layout=layout)
    out = torch.empty_like(x)
    cpu_kernel.rotate(x, cos, sin, out, layout)
    assert torch.equal(out, want)


def test_a_single_token_and_an_empty_sequence():
    x = random((1, 1, 32, 128), torch.bfloat16)
    cos, sin = rope_cos_sin(torch.tensor([70000]), 128)
    assert torch.equal(native(x, cos, sin, "half"), rotate_pairs(x, cos, sin, layout="half"))
    empty = torch.empty(1, 0, 4, 8)
    cos, sin = rope_cos_sin(torch.arange(0), 8)
    assert native(empty, cos, sin, "interleaved").shape == (1, 0, 4, 8)


def test_compiled_once_into_the_cache_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    cpu_kernel.library.cache_clear()
    try:
        assert cpu_kernel.library() is not None
        built = list((tmp_path / "rope_lib").iterdir())
        assert [p.suffix for p in built] == [".so"], "one library, no scratch files left behind"
        stamp = built[0].stat().st_mtime_ns
        cpu_kernel.library.cache_clear()
        assert cpu_kernel.library() is not None and built[0].stat().st_mtime_ns == stamp, "a second process reuses it"
    finally:
        cpu_kernel.library.cache_clear()


def test_a_failing_compiler_is_reported_and_the_other_kernels_run(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(cpu_kernel, "FLAGS", (*cpu_kernel.FLAGS, "--no-such-flag"))
    cpu_kernel.library.cache_clear()
    try:
        with pytest.warns(RuntimeWarning, match="could not compile its CPU kernel.*no-such-flag"):
            assert cpu_kernel.library() is None
        x = random((1, 3, 2, 8), torch.float32)
        assert kernels_for(x, x, "half")[0] != "native"
        cos, sin = rope_cos_sin(torch.arange(3), 8)
        torch.testing.assert_close(rotate_pairs_fused(x, cos, sin, layout="half"), rotate_pairs(x, cos, sin, layout="half"), rtol=0, atol=1e-6)
        assert not list((tmp_path / "rope_lib").glob("*.so"))
    finally:
        cpu_kernel.library.cache_clear()


def test_what_it_does_not_take_goes_to_the_other_kernels():
    f16 = torch.empty(1, 2, 1, 8, dtype=torch.float16)
    spread = torch.empty(1, 2, 1, 16)[..., ::2]
    assert not cpu_kernel.handles(f16, f16) and not cpu_kernel.handles(spread, spread)
    assert not cpu_kernel.handles(torch.empty(1, 2, 1, 8, device="meta"), torch.empty(1, 2, 1, 8, device="meta"))
    with pytest.raises(ValueError, match="kernel must be one of"):
        rotate_pairs_fused(f16, *rope_cos_sin(torch.arange(2), 8), kernel="native")


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_streamed_rows_are_the_same_rotation(dtype, layout, monkeypatch):
    """With a cache said to be tiny every out-of-place call streams its rows: aligned rows go through the
    row buffer and non-temporal stores, misaligned ones are written directly, and the result is the same."""
    monkeypatch.setattr(cpu_kernel, "private_cache_bytes", lambda: 16)
    x = random((2, 40, 8, 64), dtype, seed=4)
    cos, sin = rope_cos_sin(torch.arange(40), 64, dtype=compute_dtype(dtype))
    want = rotate_pairs(x, cos, sin, layout=layout)
    aligned = torch.empty_like(x)
    assert cpu_kernel.streams(x, aligned) and aligned.data_ptr() % 64 == 0
    assert torch.equal(native(x, cos, sin, layout, out=aligned), want)
    shifted = torch.empty(x.numel() + 1, dtype=dtype)[1:].view(x.shape)  # rows off the 32-byte grid
    assert torch.equal(native(x, cos, sin, layout, out=shifted), want)
    in_place = x.clone()
    assert not cpu_kernel.streams(in_place, in_place)
    assert torch.equal(native(in_place, cos, sin, layout, out=in_place), want)


def test_streaming_needs_a_working_set_as_large_as_the_threads_private_caches(monkeypatch):
    x = torch.empty(1, 4, 2, 32)  # 1 KiB read + 1 KiB written
    monkeypatch.setattr(cpu_kernel.torch, "get_num_threads", lambda: 2)
    monkeypatch.setattr(cpu_kernel, "private_cache_bytes", lambda: 1024)
    assert cpu_kernel.streams(x, torch.empty_like(x))
    monkeypatch.setattr(cpu_kernel, "private_cache_bytes", lambda: 1025)
    assert not cpu_kernel.streams(x, torch.empty_like(x))
    monkeypatch.setattr(cpu_kernel, "private_cache_bytes", lambda: None)
    assert not cpu_kernel.streams(x, torch.empty_like(x))


def test_the_private_cache_is_read_from_sys(tmp_path, monkeypatch):
    """The largest level that CPU 0 alone uses: its L2 here, not the L3 it shares with CPUs 0-7."""
    for index, (level, size, shared) in enumerate([("1", "48K", "0"), ("1", "32K", "0"), ("2", "2048K", "0"), ("3", "32M", "0-7")]):
        (tmp_path / f"index{index}").mkdir()
        (tmp_path / f"index{index}" / "level").write_text(level + "\n")
        (tmp_path / f"index{index}" / "size").write_text(size + "\n")
        (tmp_path / f"index{index}" / "shared_cpu_list").write_text(shared + "\n")
    monkeypatch.setattr(cpu_kernel, "CACHE_INFO", tmp_path)
    cpu_kernel.private_cache_bytes.cache_clear()
    try:
        assert cpu_kernel.private_cache_bytes() == 2048 * 2**10
        monkeypatch.setattr(cpu_kernel, "CACHE_INFO", tmp_path / "missing")
        cpu_kernel.private_cache_bytes.cache_clear()
        assert cpu_kernel.private_cache_bytes() is None
    finally:
        cpu_kernel.private_cache_bytes.cache_clear()


@pytest.mark.parametrize("layout", LAYOUTS)
def test_bf16_special_values_inside_full_vector_blocks(layout):
    """Rows of 32 pairs, so that processors with a bf16 conversion instruction take their vector path: NaN,
    infinities, overflow on rounding and results below the smallest normal number come out as rotate_pairs
    gives them, bit for bit, and NaN where it gives NaN (the instruction alone would flush subnormals)."""
    x = random((2, 5, 3, 64), torch.bfloat16, seed=6)
    specials = torch.tensor([float("nan"), float("inf"), -float("inf"), 3.3e38, 1.2e-38, -9e-39, 1e-40, 0.0, -0.0], dtype=torch.bfloat16)
    flat = x.view(-1)
    picks = torch.randperm(flat.numel(), generator=torch.Generator().manual_seed(7))[:90]
    flat[picks] = specials.repeat(10)
    x[1, 2, 1] = 1.5e-38  # a whole row of tiny values: every result in its blocks is subnormal
    cos, sin = rope_cos_sin(torch.arange(3000, 3005), 64)
    got, want = native(x, cos, sin, layout), rotate_pairs(x, cos, sin, layout=layout)
    assert torch.equal(got.isnan(), want.isnan()) and bool(got.isnan().any())
    numbers = ~want.isnan()  # a NaN's bits differ between torch's own scalar and vector conversions
    assert torch.equal(got.view(torch.int16)[numbers], want.view(torch.int16)[numbers])
