"""M-RoPE against its definition written out (Qwen2-VL, Wang et al. 2024) and against the code transformers runs:
Qwen2-VL's and Qwen3-VL's rotary embeddings with `apply_rotary_pos_emb`, and Qwen2-VL's `get_rope_index`.

transformers computes its angles in float32, so the rotations agree to FLOAT32_ATOL (standard-normal vectors,
positions below 100); the position ids are integers and agree exactly, except where the code departs from the
paper (a video with more frames than rows and columns), which a test pins down.
"""

import numpy as np
import pytest
import torch

from rope_lib import apply_rope
from rope_lib.mrope import mrope_axis_of_pair, mrope_inv_freq, mrope_position_ids
from rope_lib.multi_axis import apply_multi_axis_rope

FLOAT32_ATOL = 5e-5


def axes_slowly(section, interleaved):
    """Which axis each pair follows: blocks t…t h…h w…w (Qwen2-VL), or t h w t h w … with t for the rest (Qwen3-VL)."""
    s_t, s_h, s_w = section
    if not interleaved:
        return ["t"] * s_t + ["h"] * s_h + ["w"] * s_w
    out = []
    for i in range(sum(section)):
        if i % 3 == 1 and i // 3 < s_h:
            out.append("h")
        elif i % 3 == 2 and i // 3 < s_w:
            out.append("w")
        else:
            out.append("t")
    return out


@pytest.mark.parametrize("section", [(16, 24, 24), (24, 20, 20), (2, 1, 1), (4, 4, 4)])
@pytest.mark.parametrize("interleaved", [False, True])
def test_axes_follow_the_definition(section, interleaved):
    if interleaved and section == (16, 24, 24):
        with pytest.raises(ValueError, match=r"cannot be laid out as t, h, w.*\(22, 21, 21\)"):
            mrope_axis_of_pair(section, interleaved=True)
        return
    got = mrope_axis_of_pair(section, interleaved=interleaved)
    assert ["thw"[a] for a in got] == axes_slowly(section, interleaved)
    assert np.bincount(got, minlength=3).tolist() == list(section)


def test_frequencies_are_1d_frequencies_placed_in_their_axis():
    freqs = mrope_inv_freq(16, 10000.0, (2, 3, 3))
    theta = [10000.0 ** (-2 * i / 16) for i in range(8)]
    expected = np.zeros((8, 3))
    for i, axis in enumerate([0, 0, 1, 1, 1, 2, 2, 2]):
        expected[i, axis] = theta[i]
    np.testing.assert_allclose(freqs, expected, rtol=1e-15)


def test_text_tokens_get_plain_rope():
    ids = mrope_position_ids([("text", 9)])
    x = torch.randn(1, 9, 2, 16, dtype=torch.float64)
    for interleaved in (False, True):
        got = apply_multi_axis_rope(x, ids, mrope_inv_freq(16, 10000.0, (4, 2, 2), interleaved=interleaved), layout="half")
        assert torch.allclose(got, apply_rope(x, torch.arange(9), layout="half"), rtol=0, atol=1e-12)


def test_position_ids_follow_the_paper():
    ids = mrope_position_ids([("text", 2), ("image", (2, 3)), ("text", 1), ("video", (2, 1, 2))])
    assert ids.T.tolist() == [
        [0, 1, 2, 2, 2, 2, 2, 2, 5, 6, 6, 7, 7],
        [0, 1, 2, 2, 2, 3, 3, 3, 5, 6, 6, 6, 6],
        [0, 1, 2, 3, 4, 2, 3, 4, 5, 6, 7, 6, 7],
    ]


def tiny_qwen2_vl(spatial_merge_size=2):
    from transformers import Qwen2VLConfig
    from transformers.models.qwen2_vl.modeling_qwen2_vl import Qwen2VLModel

    text = dict(hidden_size=32, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=1,
                vocab_size=64, rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "mrope_section": [2, 3, 3]})
    vision = dict(depth=1, embed_dim=16, hidden_size=32, num_heads=2, mlp_ratio=1, spatial_merge_size=spatial_merge_size)
    return Qwen2VLModel(Qwen2VLConfig(text_config=text, vision_config=vision)).eval()


def hf_position_ids(model, segments):
    """Qwen2-VL's get_rope_index on the same sequence: token types 0 text, 1 image, 2 video; grids in patches."""
    merge = model.config.vision_config.spatial_merge_size
    types, images, videos = [], [], []
    for kind, size in segments:
        if kind == "text":
            types += [0] * size
            continue
        t, h, w = (1, *size) if kind == "image" else size
        types += [1 if kind == "image" else 2] * (t * h * w)
        (images if kind == "image" else videos).append([t, h * merge, w * merge])
    types = torch.tensor([types])
    grids = lambda g: torch.tensor(g) if g else None  # noqa: E731
    ids, _ = model.get_rope_index(torch.zeros_like(types), types, image_grid_thw=grids(images), video_grid_thw=grids(videos))
    return ids[:, 0].T  # (T, 3)


SEQUENCES = [
    [("text", 3), ("image", (2, 3)), ("text", 2)],
    [("image", (4, 4)), ("text", 1)],
    [("text", 5), ("image", (1, 6)), ("text", 2), ("image", (3, 2)), ("text", 4)],
    [("text", 2), ("video", (3, 2, 4)), ("text", 3)],
    [("video", (2, 5, 5)), ("text", 1), ("image", (2, 2))],
]


@pytest.mark.parametrize("segments", SEQUENCES)
def test_position_ids_match_qwen2_vl_get_rope_index(segments):
    assert torch.equal(mrope_position_ids(segments), hf_position_ids(tiny_qwen2_vl(), segments))


def test_qwen2_vl_departs_from_the_paper_after_a_long_video():
    """transformers continues after a visual segment from its start + max(h, w), not from its largest id + 1:
    after a video of more frames than rows and columns, the text reuses ids the video's frames had."""
    segments = [("text", 2), ("video", (5, 2, 3)), ("text", 4)]
    ours, theirs = mrope_position_ids(segments), hf_position_ids(tiny_qwen2_vl(), segments)
    assert torch.equal(ours[:-4], theirs[:-4])
    assert torch.equal(ours[-4:] - theirs[-4:], torch.full((4, 3), 5 - 3))  # frames − max(h, w)


def mrope_rotation_hf(module, section, d, positions, x):
    """q turned by a Qwen-VL text rotary embedding (module: qwen2_vl or qwen3_vl) and its apply_rotary_pos_emb."""
    name = "Qwen2VL" if "qwen2_vl" in module.__name__ else "Qwen3VL"
    config_class = getattr(module, f"{name}TextConfig")
    config = config_class(hidden_size=2 * d, num_attention_heads=2, head_dim=d, max_position_embeddings=512,
                          rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "mrope_section": list(section)})
    cos, sin = getattr(module, f"{name}TextRotaryEmbedding" if name == "Qwen3VL" else f"{name}RotaryEmbedding")(config)(x, positions.T[:, None, :])
    heads_first = x.transpose(1, 2)  # (B, H, T, d)
    rotated, _ = module.apply_rotary_pos_emb(heads_first, heads_first, cos, sin)
    return rotated.transpose(1, 2)


@pytest.mark.parametrize("d, section", [(128, (16, 24, 24)), (64, (8, 12, 12)), (16, (2, 3, 3))])
@pytest.mark.parametrize("segments", SEQUENCES[:4])
def test_blocks_match_qwen2_vl(d, section, segments):
    from transformers.models.qwen2_vl import modeling_qwen2_vl

    positions = mrope_position_ids(segments)
    x = torch.randn(1, positions.shape[0], 2, d, generator=torch.Generator().manual_seed(d))
    ours = apply_multi_axis_rope(x, positions, mrope_inv_freq(d, 10000.0, section), layout="half")
    assert torch.allclose(ours, mrope_rotation_hf(modeling_qwen2_vl, section, d, positions, x), rtol=0, atol=FLOAT32_ATOL)


@pytest.mark.parametrize("d, section", [(128, (24, 20, 20)), (64, (12, 10, 10)), (24, (4, 4, 4))])
@pytest.mark.parametrize("segments", SEQUENCES[:4])
def test_interleaved_matches_qwen3_vl(d, section, segments):
    from transformers.models.qwen3_vl import modeling_qwen3_vl
    from transformers.models.qwen3_vl import configuration_qwen3_vl

    modeling_qwen3_vl.Qwen3VLTextConfig = configuration_qwen3_vl.Qwen3VLTextConfig
    positions = mrope_position_ids(segments)
    x = torch.randn(1, positions.shape[0], 2, d, generator=torch.Generator().manual_seed(d))
    ours = apply_multi_axis_rope(x, positions, mrope_inv_freq(d, 10000.0, section, interleaved=True), layout="half")
    theirs = mrope_rotation_hf(modeling_qwen3_vl, section, d, positions, x)
    assert torch.allclose(ours, theirs, rtol=0, atol=FLOAT32_ATOL)
    blocks = apply_multi_axis_rope(x, positions, mrope_inv_freq(d, 10000.0, section), layout="half")
    assert not torch.allclose(blocks, theirs, rtol=0, atol=FLOAT32_ATOL)  # the check tells the two layouts apart


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="mrope_section must be three pair counts"):
        mrope_axis_of_pair((16, 24))
    with pytest.raises(ValueError, match="mrope_section must add up to d/2 = 64"):
        mrope_inv_freq(128, 10000.0, (16, 24, 16))
    with pytest.raises(TypeError, match="interleaved must be True or False"):
        mrope_axis_of_pair((2, 3, 3), interleaved="yes")
    with pytest.raises(ValueError, match="segments must be a non-empty list"):
        mrope_position_ids([])
    with pytest.raises(ValueError, match="each segment must be"):
        mrope_position_ids([("audio", 3)])
    with pytest.raises(ValueError, match="an image segment's grid must be a tuple of 2 sizes"):
        mrope_position_ids([("image", (1, 2, 3))])
    with pytest.raises(ValueError, match="a text segment's length must be a positive integer"):
        mrope_position_ids([("text", 0)])
