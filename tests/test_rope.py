"""The matrix form R^d_{Θ,m}·x, the complex form (Meta's names) and the elementwise
form (RoFormer eq. 34) are one function: checked against the slow numpy reference."""

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from rope_lib import apply_rope, apply_rotary_emb, permute_rows_to_half, permute_rows_to_interleaved, precompute_freqs_cis, rope_cos_sin
from rope_lib.layouts import half_to_interleaved, interleaved_to_half
from rope_lib.rope import rotate_pairs
from rope_lib.rotation import apply_rope_matrix

MAX_POSITION = 10**6
TOLERANCE = {torch.float64: 1e-12, torch.float32: 1e-5}


@st.composite
def rope_case(draw):
    """A (B, T, H, D) input with D in 2..256 and T sorted-free positions up to 10^6."""
    d = 2 * draw(st.integers(1, 128))
    b, t, h = draw(st.integers(1, 2)), draw(st.integers(1, 4)), draw(st.integers(1, 3))
    start = draw(st.integers(0, MAX_POSITION - t))
    seed = draw(st.integers(0, 2**31 - 1))
    x = torch.randn(b, t, h, d, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    return x, torch.arange(start, start + t)


def complex_form(x, positions):
    """Meta's call: build the table once, slice it at the positions, rotate."""
    table = precompute_freqs_cis(x.shape[-1], int(positions[-1]) + 1, dtype=torch.complex128 if x.dtype == torch.float64 else torch.complex64)
    rotated, _ = apply_rotary_emb(x, x, table[positions[0] : positions[-1] + 1])
    return rotated


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
@given(case=rope_case())
def test_three_forms_agree(dtype, case):
    x64, positions = case
    reference = apply_rope_matrix(x64.numpy(), positions.numpy())  # float64, O(D²)
    x = x64.to(dtype)
    tol = TOLERANCE[dtype]
    np.testing.assert_allclose(apply_rope(x, positions, layout="interleaved", order="BTHD").double().numpy(), reference, rtol=0, atol=tol)
    np.testing.assert_allclose(complex_form(x, positions).double().numpy(), reference, rtol=0, atol=tol)
    # the half layout is the same rotation in a reordered basis
    half = apply_rope(interleaved_to_half(x), positions, layout="half", order="BTHD")
    np.testing.assert_allclose(half_to_interleaved(half).double().numpy(), reference, rtol=0, atol=tol)
    np.testing.assert_allclose(
        half.double().numpy(), apply_rope_matrix(interleaved_to_half(x64).numpy(), positions.numpy(), layout="half"), rtol=0, atol=tol
    )


@given(case=rope_case())
def test_per_batch_positions_equal_one_call_per_row(case):
    x, positions = case
    rows = torch.stack([positions + 7 * b for b in range(x.shape[0])])  # (B, T)
    together = apply_rope(x, rows, layout="interleaved", order="BTHD")
    for b in range(x.shape[0]):
        torch.testing.assert_close(together[b : b + 1], apply_rope(x[b : b + 1], rows[b], layout="interleaved", order="BTHD"), rtol=0, atol=0)


@pytest.mark.parametrize("d", [2, 4, 10, 128])
def test_layout_permutations_are_inverse(d):
    x = torch.randn(3, d, dtype=torch.float64)
    torch.testing.assert_close(half_to_interleaved(interleaved_to_half(x)), x, rtol=0, atol=0)
    torch.testing.assert_close(interleaved_to_half(half_to_interleaved(x)), x, rtol=0, atol=0)
    assert interleaved_to_half(torch.arange(6.0)).tolist() == [0.0, 2.0, 4.0, 1.0, 3.0, 5.0]
    w = torch.randn(4 * d, 7, dtype=torch.float64)
    torch.testing.assert_close(permute_rows_to_interleaved(permute_rows_to_half(w, 4), 4), w, rtol=0, atol=0)


@pytest.mark.parametrize("n_heads, d", [(1, 8), (4, 16), (2, 128)])
def test_permuted_weights_give_identical_scores_in_the_half_layout(n_heads, d):
    g = torch.Generator().manual_seed(3)
    dim, seq = 24, 9
    wq, wk = torch.randn(n_heads * d, dim, generator=g, dtype=torch.float64), torch.randn(n_heads * d, dim, generator=g, dtype=torch.float64)
    x = torch.randn(1, seq, dim, generator=g, dtype=torch.float64)
    positions = torch.arange(40, 40 + seq)

    def scores(wq, wk, layout):
        q = apply_rope((x @ wq.T).view(1, seq, n_heads, d), positions, layout=layout)
        k = apply_rope((x @ wk.T).view(1, seq, n_heads, d), positions, layout=layout)
        return torch.einsum("bthd,bshd->bhts", q, k)

    interleaved = scores(wq, wk, "interleaved")
    half = scores(permute_rows_to_half(wq, n_heads), permute_rows_to_half(wk, n_heads), "half")
    torch.testing.assert_close(half, interleaved, rtol=0, atol=1e-10)
    assert not torch.allclose(scores(wq, wk, "half"), interleaved), "the unpermuted weights must not match"


def test_rotate_pairs_accepts_a_per_batch_table():
    x = torch.randn(2, 3, 1, 4, dtype=torch.float64)
    pos = torch.tensor([[0, 1, 2], [5, 6, 7]])
    cos, sin = rope_cos_sin(pos, 4, dtype=torch.float64)
    torch.testing.assert_close(rotate_pairs(x, cos, sin), apply_rope(x, pos, layout="interleaved", order="BTHD"), rtol=0, atol=0)


def test_inputs_are_not_modified():
    x = torch.randn(1, 3, 2, 8)
    before = x.clone()
    apply_rope(x, range(3), layout="interleaved", order="BTHD")
    apply_rotary_emb(x, x, precompute_freqs_cis(8, 3))
    torch.testing.assert_close(x, before, rtol=0, atol=0)
