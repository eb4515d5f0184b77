"""RoPE for positions with several coordinates against the obvious loop: one 2×2 rotation per pair."""

import numpy as np
import pytest
import torch

from rope_lib import apply_rope, inv_freq
from rope_lib.rotation import rotation_matrix_2d
from rope_lib._validate import require_axis_frequencies
from rope_lib.multi_axis import apply_multi_axis_rope, multi_axis_angles


def rotate_slowly(x, positions, freqs, layout):
    """Pair i of every head vector, turned by Σ_a p_a f_{i,a} with an explicit 2×2 rotation matrix (RoFormer eq. 13)."""
    x, positions = x.numpy(), positions.numpy()
    out = np.empty_like(x)
    d = x.shape[-1]
    for b in range(x.shape[0]):
        for t in range(x.shape[1]):
            for h in range(x.shape[2]):
                for i in range(d // 2):
                    angle = sum(float(positions[t, a]) * freqs[i, a] for a in range(freqs.shape[1]))
                    where = [2 * i, 2 * i + 1] if layout == "interleaved" else [i, i + d // 2]
                    out[b, t, h, where] = rotation_matrix_2d(angle) @ x[b, t, h, where]
    return out


@pytest.mark.parametrize("layout", ["interleaved", "half"])
@pytest.mark.parametrize("axes", [1, 2, 3])
def test_rotation_is_one_matrix_per_pair(layout, axes):
    rng = np.random.default_rng(axes)
    x = torch.from_numpy(rng.standard_normal((2, 5, 3, 8)))
    positions = torch.from_numpy(rng.integers(-4, 30, size=(5, axes)))
    freqs = rng.standard_normal((4, axes))
    got = apply_multi_axis_rope(x, positions, freqs, layout=layout)
    np.testing.assert_allclose(got.numpy(), rotate_slowly(x, positions, freqs, layout), rtol=0, atol=1e-12)


def test_one_axis_with_the_1d_frequencies_is_plain_rope():
    x = torch.randn(1, 7, 2, 16, dtype=torch.float64)
    positions = torch.arange(3, 10)
    got = apply_multi_axis_rope(x, positions[:, None], inv_freq(16)[:, None], layout="half")
    assert torch.allclose(got, apply_rope(x, positions, layout="half"), rtol=0, atol=1e-12)


def test_angles_are_dot_products_and_batched_positions_work():
    freqs = np.array([[1.0, 0.5], [0.0, 2.0]])
    assert torch.equal(multi_axis_angles([[2, 3]], freqs), torch.tensor([[3.5, 6.0]], dtype=torch.float64))
    x = torch.randn(2, 3, 1, 4, dtype=torch.float64)
    per_batch = torch.tensor([[[0, 0], [1, 2], [3, 1]], [[5, 5], [0, 1], [2, 2]]])
    both = apply_multi_axis_rope(x, per_batch, freqs)
    for b in range(2):
        assert torch.allclose(both[b : b + 1], apply_multi_axis_rope(x[b : b + 1], per_batch[b], freqs))


def test_float32_input_keeps_its_dtype():
    x = torch.randn(1, 3, 1, 4)
    assert apply_multi_axis_rope(x, [[0, 1], [1, 0], [2, 2]], np.ones((2, 2))).dtype == torch.float32


def test_bad_input_is_named():
    x = torch.randn(1, 3, 1, 4)
    freqs = np.ones((2, 2))
    with pytest.raises(ValueError, match="inv_freq must have one row per pair"):
        apply_multi_axis_rope(x, [[0, 1]] * 3, np.ones((3, 2)))
    with pytest.raises(ValueError, match=r"positions must have shape \(T, A\)"):
        apply_multi_axis_rope(x, [[0, 1, 2]] * 3, freqs)
    with pytest.raises(TypeError, match="positions must hold integers"):
        apply_multi_axis_rope(x, torch.zeros(3, 2), freqs)
    with pytest.raises(ValueError, match="one coordinate per axis"):
        multi_axis_angles([1, 2, 3], freqs)
    with pytest.raises(ValueError, match=r"inv_freq must have shape \(D/2, A\)"):
        require_axis_frequencies(np.ones(4))
    with pytest.raises(TypeError, match="inv_freq must hold real numbers"):
        require_axis_frequencies(np.ones((2, 2), dtype=bool))
    with pytest.raises(ValueError, match="finite"):
        require_axis_frequencies(np.full((2, 2), np.nan))
    with pytest.raises(ValueError, match="layout"):
        apply_multi_axis_rope(x, [[0, 1]] * 3, freqs, layout="pairs")


def test_learnable_frequencies_get_gradients():
    """RoPE-Mixed learns its frequency vectors: passed as a tensor that requires grad, they are not detached, and
    the gradient is the one finite differences give. The same holds for apply_rope's inv_freq."""
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(1, 6, 2, 8, dtype=torch.float64, generator=gen)
    positions = torch.tensor([[h, w] for h in range(2) for w in range(3)])
    start = torch.rand(4, 2, dtype=torch.float64, generator=gen)

    def loss(freqs):
        return (apply_multi_axis_rope(x, positions, freqs) * x.flip(1)).sum()

    freqs = start.clone().requires_grad_()
    loss(freqs).backward()
    numeric = torch.zeros_like(start)
    for index in np.ndindex(*start.shape):
        step = torch.zeros_like(start)
        step[index] = 1e-6
        numeric[index] = (loss(start + step) - loss(start - step)) / 2e-6
    torch.testing.assert_close(freqs.grad, numeric, rtol=1e-5, atol=1e-8)

    inv = torch.tensor(inv_freq(8), requires_grad=True)
    apply_rope(x, range(6), inv_freq=inv, layout="interleaved").square().sum().backward()  # a rotation keeps the norm: the gradient is ~0
    assert inv.grad is not None and inv.grad.abs().max() < 1e-9
    (apply_rope(x, range(6), inv_freq=inv, layout="interleaved") * x).sum().backward()
    assert inv.grad.abs().max() > 1e-3
