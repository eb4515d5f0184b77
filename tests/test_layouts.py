"""rope_lib.layouts: the two pairing conventions, half (Hugging Face's) and interleaved (Meta's), the permutations
between them, and the row permutation of W_q and W_k that makes a checkpoint of one score as the other."""

import pytest
import torch

from rope_lib import apply_rope, permute_rows_to_half, permute_rows_to_interleaved
from rope_lib.layouts import half_to_interleaved, interleaved_to_half


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
