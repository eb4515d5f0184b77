"""2D RoPE for image patches: the frequencies against Heo et al.'s formulas written out, the rotation against the
axial RoPE that transformers ships (Pixtral's vision encoder and Qwen2-VL's), and the score claims of the chapter.

transformers computes its angles in float32 from float32 frequencies, so the parity tests allow float32 rounding:
FLOAT32_ATOL on rotated standard-normal vectors whose angles stay below a few dozen radians.
"""

import math

import numpy as np
import pytest
import torch

from rope_lib.axial import (
    axial_inv_freq_2d,
    grid_score_map,
    mixed_inv_freq_2d,
    pair_scores_2d,
    patch_positions,
)
from rope_lib.multi_axis import apply_multi_axis_rope

FLOAT32_ATOL = 2e-5
GRID = [(d, base, size) for d in (16, 32, 64) for base in (100.0, 10000.0) for size in ((3, 5), (8, 8), (1, 7))]


def heo_axial_slowly(d, base):
    """RoPE-Axial, Heo et al. 2024 eq. 9–10: θ_t = base^(−t/(d/4)), t = 0 … d/4 − 1; the first d/4 pairs turn with
    the first coordinate, the last d/4 with the second."""
    rows = [(base ** (-t / (d / 4)), 0.0) for t in range(d // 4)]
    return np.array(rows + [(0.0, base ** (-t / (d / 4))) for t in range(d // 4)])


def pixtral_slowly(d, base):
    """Pixtral: the d/2 frequencies base^(−2i/d) of 1D RoPE, even i for the row, odd i for the column."""
    theta = [base ** (-2 * i / d) for i in range(d // 2)]
    return np.array([(theta[i], 0.0) for i in range(0, d // 2, 2)] + [(0.0, theta[i]) for i in range(1, d // 2, 2)])


@pytest.mark.parametrize("d, base", [(4, 100.0), (16, 100.0), (64, 10000.0)])
def test_frequencies_follow_the_formulas(d, base):
    np.testing.assert_allclose(axial_inv_freq_2d(d, base), heo_axial_slowly(d, base), rtol=1e-15)
    np.testing.assert_allclose(axial_inv_freq_2d(d, base, split="alternating"), pixtral_slowly(d, base), rtol=1e-15)


def heo_mixed_slowly(d, angle, base):
    """RoPE-Mixed's initial frequencies (Heo et al. 2024, eq. 11 with their initialisation): magnitude base^(−t/(d/4))
    along the direction `angle` for the first d/4 pairs, along angle + 90° for the others."""
    first = [(base ** (-t / (d / 4)) * math.cos(angle), base ** (-t / (d / 4)) * math.sin(angle)) for t in range(d // 4)]
    turned = angle + math.pi / 2
    return np.array(first + [(base ** (-t / (d / 4)) * math.cos(turned), base ** (-t / (d / 4)) * math.sin(turned)) for t in range(d // 4)])


@pytest.mark.parametrize("angle", [0.0, 0.3, math.pi / 4, -2.0])
def test_mixed_frequencies_follow_the_formula_and_start_axial_at_angle_zero(angle):
    np.testing.assert_allclose(mixed_inv_freq_2d(16, angle, 10.0), heo_mixed_slowly(16, angle, 10.0), rtol=0, atol=1e-15)
    np.testing.assert_allclose(mixed_inv_freq_2d(16, 0.0, 100.0), axial_inv_freq_2d(16, 100.0), rtol=0, atol=1e-16)


def pixtral_rotation(d, base, positions, x):
    from transformers import PixtralVisionConfig
    from transformers.models.pixtral import modeling_pixtral as px

    config = PixtralVisionConfig(hidden_size=2 * d, num_attention_heads=2, rope_parameters={"rope_type": "axial", "rope_theta": base})
    cos, sin = px.PixtralVisionRotaryEmbedding(config)(x, positions)  # (N, d)
    heads_first = x.transpose(1, 2)  # (B, H, N, d), as Pixtral's attention holds them
    rotated, _ = px.apply_rotary_pos_emb(heads_first, heads_first, cos, sin, unsqueeze_dim=0)
    return rotated.transpose(1, 2)


def qwen2_vl_vision_rotation(d, base, positions, x):
    from transformers.models.qwen2_vl import modeling_qwen2_vl as qv
    from transformers.models.qwen2_vl.configuration_qwen2_vl import Qwen2VLVisionConfig

    config = Qwen2VLVisionConfig(embed_dim=2 * d, num_heads=2, rope_parameters={"rope_type": "axial", "rope_theta": base})
    cos, sin = qv.Qwen2VLVisionRotaryEmbedding(config)(x, positions)  # (N, d)
    rotated, _ = qv.apply_rotary_pos_emb_vision(x[0], x[0], cos, sin)  # (N, H, d)
    return rotated[None]


@pytest.mark.parametrize("d, base, size", GRID)
def test_alternating_axial_matches_pixtral(d, base, size):
    positions = patch_positions(*size)
    x = torch.randn(1, positions.shape[0], 2, d, generator=torch.Generator().manual_seed(d))
    ours = apply_multi_axis_rope(x, positions, axial_inv_freq_2d(d, base, split="alternating"), layout="half")
    assert torch.allclose(ours, pixtral_rotation(d, base, positions, x), rtol=0, atol=FLOAT32_ATOL)


@pytest.mark.parametrize("d, base, size", GRID)
def test_shared_axial_matches_qwen2_vl_vision_encoder(d, base, size):
    positions = patch_positions(*size)
    x = torch.randn(1, positions.shape[0], 2, d, generator=torch.Generator().manual_seed(d + 1))
    ours = apply_multi_axis_rope(x, positions, axial_inv_freq_2d(d, base), layout="half")
    assert torch.allclose(ours, qwen2_vl_vision_rotation(d, base, positions, x), rtol=0, atol=FLOAT32_ATOL)


def test_a_planted_swap_of_the_axes_is_caught():
    positions = patch_positions(3, 5)
    x = torch.randn(1, 15, 2, 16, generator=torch.Generator().manual_seed(0))
    swapped = apply_multi_axis_rope(x, positions.flip(-1), axial_inv_freq_2d(16, 10000.0), layout="half")
    assert not torch.allclose(swapped, qwen2_vl_vision_rotation(16, 10000.0, positions, x), rtol=0, atol=FLOAT32_ATOL)


def test_patch_positions_are_row_major_rows_then_columns():
    assert patch_positions(2, 3).tolist() == [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]]


def rotated_score(q, k, freqs, at_q, at_k):
    """q·k after turning q to patch at_q and k to patch at_k: the score attention computes."""
    rq = apply_multi_axis_rope(torch.from_numpy(q)[None, None, None], [at_q], freqs)
    rk = apply_multi_axis_rope(torch.from_numpy(k)[None, None, None], [at_k], freqs)
    return float((rq * rk).sum())


@pytest.mark.parametrize("freqs", [axial_inv_freq_2d(8, 100.0), mixed_inv_freq_2d(8, 0.7, 10.0)])
def test_pair_scores_add_up_to_the_score_of_the_rotated_vectors(freqs):
    rng = np.random.default_rng(3)
    q, k = rng.standard_normal(8), rng.standard_normal(8)
    for at_q, at_k in [((0, 0), (0, 0)), ((3, 1), (0, 5)), ((7, 7), (2, 4))]:
        offset = np.subtract(at_q, at_k)
        assert math.isclose(pair_scores_2d(q, k, freqs, offset).sum(), rotated_score(q, k, freqs, at_q, at_k), abs_tol=1e-12)
    shifted = rotated_score(q, k, freqs, (3 + 4, 1 - 2), (0 + 4, 5 - 2))
    assert math.isclose(shifted, rotated_score(q, k, freqs, (3, 1), (0, 5)), abs_tol=1e-12)  # only the offset counts


def interaction(score):
    """S(a, b) − S(a, 0) − S(0, b) + S(0, 0) over a grid of offsets: 0 everywhere iff S(Δh, Δw) = f(Δh) + g(Δw)."""
    return score - score[:, :1] - score[:1, :] + score[:1, :1]


def offsets_grid(n=6):
    return np.stack(np.meshgrid(np.arange(n), np.arange(n), indexing="ij"), axis=-1)


def test_axial_pairs_each_see_one_axis_and_the_score_separates():
    rng = np.random.default_rng(4)
    q, k = rng.standard_normal(16), rng.standard_normal(16)
    pairs = pair_scores_2d(q, k, axial_inv_freq_2d(16, 100.0), offsets_grid())  # (6, 6, 8)
    assert np.allclose(pairs[..., :4], pairs[:, :1, :4], atol=1e-12)  # pairs 0 … 3: the same in every column, Δh alone
    assert np.allclose(pairs[..., 4:], pairs[:1, :, 4:], atol=1e-12)  # pairs 4 … 7: Δw alone
    assert np.abs(interaction(pairs.sum(-1))).max() < 1e-12


def test_mixed_pairs_can_follow_a_diagonal_and_break_the_separation():
    rng = np.random.default_rng(5)
    q, k = rng.standard_normal(16), rng.standard_normal(16)
    pairs = pair_scores_2d(q, k, mixed_inv_freq_2d(16, math.pi / 4, 10.0), offsets_grid())
    along = np.array([pairs[a, 5 - a, 0] for a in range(6)])  # Δh + Δw = 5: the same offset along f_0
    assert np.allclose(along, along[0], atol=1e-12)
    assert np.abs(interaction(pairs.sum(-1))).max() > 0.1


def test_score_map_puts_the_query_patch_at_its_place():
    ones = np.ones(16)
    grid = grid_score_map(ones, ones, axial_inv_freq_2d(16, 100.0), (2, 5), 6, 8)
    assert grid.shape == (6, 8) and np.unravel_index(grid.argmax(), grid.shape) == (2, 5) and math.isclose(grid.max(), ones @ ones)  # q·q at Δ = 0


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="d must be a multiple of 4"):
        axial_inv_freq_2d(6)
    with pytest.raises(ValueError, match="split must be one of"):
        axial_inv_freq_2d(8, split="rows")
    with pytest.raises(ValueError, match="base must be a finite number greater than 1"):
        mixed_inv_freq_2d(8, 0.0, base=1.0)
    with pytest.raises(TypeError, match="angle must be a finite real number"):
        mixed_inv_freq_2d(8, "diagonal")
    with pytest.raises(ValueError, match="height must be a positive integer"):
        patch_positions(0, 3)
    with pytest.raises(ValueError, match="offsets must be integers"):
        pair_scores_2d(np.ones(4), np.ones(4), axial_inv_freq_2d(4), np.array([0.5, 1.0]))
    with pytest.raises(ValueError, match="q and k must be vectors"):
        pair_scores_2d(np.ones(4), np.ones(6), axial_inv_freq_2d(4), np.array([0, 1]))
    with pytest.raises(TypeError, match="q must hold real numbers, got dtype complex128"):
        pair_scores_2d(np.ones(4) + 1j, np.ones(4), axial_inv_freq_2d(4), np.array([0, 1]))  # not cast: that would drop 1j
    with pytest.raises(ValueError, match="inv_freq must hold finite frequencies"):
        pair_scores_2d(np.ones(4), np.ones(4), np.full((2, 2), np.nan), np.array([0, 1]))
    with pytest.raises(ValueError, match="query must be a patch"):
        grid_score_map(np.ones(4), np.ones(4), axial_inv_freq_2d(4), (3, 0), 3, 3)
