"""rope_lib.hf: a Hugging Face Llama config and state dict read into a rope_lib model, and every config, rope
parameter or weight the model cannot honour refused by its key before anything is loaded."""

import pytest
import torch

from hf_models import VOCAB, hf_llama, ours_from, tokens
from rope_lib import RopeScaling, config_from_hf, from_hf_state_dict, scaling_from_hf


@pytest.mark.parametrize("rope, method", [(r, r) for r in ("linear", "dynamic", "yarn", "llama3", "longrope", "proportional")])
def test_rope_parameters_map_to_the_rule_of_the_same_name(rope, method):
    scaling = ours_from(hf_llama(rope)).config.scaling
    assert isinstance(scaling, RopeScaling) and scaling.method == method
    assert ours_from(hf_llama("default")).config.scaling is None


def test_an_unpermuted_interleaved_load_gives_other_logits():
    """The planted bug the permutation exists for: Hugging Face's W_q, W_k rows run with Meta's pairing."""
    hf = hf_llama()
    ours = ours_from(hf, "interleaved")
    wrong = ours_from(hf, "interleaved")
    state = hf.state_dict()
    with torch.no_grad():
        for i, layer in enumerate(wrong.layers):
            wq, wk, _ = layer.attention.qkv_weights()
            wq.copy_(state[f"model.layers.{i}.self_attn.q_proj.weight"])
            wk.copy_(state[f"model.layers.{i}.self_attn.k_proj.weight"])
        x = tokens(1, 24)
        expected = hf(x).logits
        assert (ours(x, use_cache=False) - expected).abs().max() < 1e-4
        assert (wrong(x, use_cache=False) - expected).abs().max() > 1e-2


def test_the_config_can_be_read_from_a_dict():
    hf = hf_llama("llama3")
    assert config_from_hf(hf.config.to_dict(), layout="half", device="cpu") == config_from_hf(hf.config, layout="half", device="cpu")


@pytest.mark.parametrize(
    "change, words",
    [
        ({"hidden_act": "gelu"}, "hidden_act"),
        ({"attention_bias": True}, "attention_bias"),
        ({"head_dim": 32}, "head_dim"),
        ({"rope_parameters": {"rope_type": "longrope", "rope_theta": 10000.0}}, "original_max_position_embeddings"),
        ({"rope_parameters": {"rope_type": "su", "rope_theta": 10000.0}}, "rope_type"),
        ({"rope_parameters": {"rope_type": "linear", "rope_theta": 10000.0}}, "factor"),
        ({"rope_parameters": {"rope_type": "linear", "rope_theta": 10000.0, "factor": 2.0, "beta_fast": 8}}, "beta_fast"),
        ({"rope_parameters": {"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.5}}, "partial_rotary_factor"),
        ({"num_hidden_layers": None}, "n_layers"),
    ],
)
def test_a_hugging_face_config_the_model_cannot_honour_is_refused(change, words):
    config = {**hf_llama().config.to_dict(), **change}
    with pytest.raises((ValueError, TypeError), match=words):
        config_from_hf(config, layout="half", device="cpu")


@pytest.mark.parametrize(
    "rope, error, words",
    [
        ({"rope_type": "linear", "factor": True}, TypeError, r"rope_parameters\['factor'\] must be a finite real number, got True"),
        ({"rope_type": "linear", "factor": "2"}, TypeError, r"rope_parameters\['factor'\] must be a finite real number, got '2'"),
        ({"rope_type": "dynamic", "factor": [2.0]}, TypeError, r"rope_parameters\['factor'\] must be a finite real number"),
        ({"rope_type": "llama3", "factor": 8.0, "high_freq_factor": 4.0}, ValueError, r"rope_type 'llama3' needs 'low_freq_factor'"),
        ({"rope_type": "yarn", "factor": 4.0, "beta_fast": "32"}, TypeError, r"rope_parameters\['beta_fast'\]"),
        ({"rope_type": "yarn", "factor": 4.0, "truncate": "no"}, TypeError, r"rope_parameters\['truncate'\] must be True or False"),
        ({"rope_type": "longrope", "factor": 4.0, "short_factor": [1.0] * 8, "long_factor": [2.0] * 8}, ValueError,
         r"rope_type 'longrope' needs 'original_max_position_embeddings'"),
        ({"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 16.0},
         TypeError, r"rope_parameters\['original_max_position_embeddings'\] must be an int"),
        ({"rope_type": "longrope", "original_max_position_embeddings": 16, "short_factor": 1.0, "long_factor": [2.0] * 8}, TypeError,
         r"rope_parameters\['short_factor'\] must be a list of numbers"),
        ({"rope_type": "longrope", "original_max_position_embeddings": 16, "short_factor": [1.0] * 8, "long_factor": [2.0] * 7 + ["x"]},
         TypeError, r"rope_parameters\['long_factor'\]\[7\] must be a finite real number"),
        ({"rope_type": "longrope", "original_max_position_embeddings": 16, "short_factor": [1.0] * 8, "long_factor": [2.0] * 7},
         ValueError, r"short_factor and long_factor must hold one factor per pair each, the same number, got 8 and 7"),
        ({"rope_type": "proportional", "partial_rotary_factor": 1.5}, ValueError, r"proportion must lie in \[0, 1\]"),
        ({"rope_type": "yarn_v2", "factor": 4.0}, ValueError, r"rope_parameters\['rope_type'\] must be one of"),
    ],
)
def test_rope_parameters_of_the_wrong_kind_are_refused_by_their_key(rope, error, words):
    """Nothing is coerced: a factor of True is not 1.0, nor "2" 2.0; a missing key is named, not a bare KeyError."""
    with pytest.raises(error, match=words):
        scaling_from_hf({"rope_theta": 10000.0, **rope}, 64)


@pytest.mark.parametrize(
    "change, words",
    [
        ({"hidden_size": [64]}, r"hf_config's hidden_size must be an int"),
        ({"num_key_value_heads": 2.0}, r"hf_config's num_key_value_heads must be an int"),
        ({"head_dim": "16"}, r"hf_config's head_dim must be an int"),
        ({"rms_norm_eps": [1e-6]}, r"hf_config's rms_norm_eps must be a finite real number"),
        ({"rope_parameters": ["default"]}, r"rope_parameters must be a dict, got list"),
        ({"rope_parameters": {"rope_type": "default", "rope_theta": [10000.0]}}, r"rope_parameters\['rope_theta'\] must be a real number"),
        ({"tie_word_embeddings": "yes"}, r"hf_config's tie_word_embeddings must be True or False"),
    ],
)
def test_a_hugging_face_config_of_the_wrong_kind_is_refused_by_its_key(change, words):
    config = {**hf_llama().config.to_dict(), **change}
    with pytest.raises(TypeError, match=words):
        config_from_hf(config, layout="half", device="cpu")


def test_weights_of_the_wrong_shape_are_refused_by_name_before_loading():
    hf = hf_llama()
    state = {**hf.state_dict(), "model.layers.1.self_attn.k_proj.weight": torch.zeros(16, 64)}
    with pytest.raises(ValueError, match=r"model.layers.1.self_attn.k_proj.weight has shape \(16, 64\), the config needs \(32, 64\)"):
        from_hf_state_dict(state, hf.config, layout="half", device="cpu")
    state = {**hf.state_dict(), "model.embed_tokens.weight": torch.zeros(VOCAB, 64, 1)}
    with pytest.raises(ValueError, match=r"model.embed_tokens.weight has shape \(97, 64, 1\), the config needs \(97, 64\)"):
        from_hf_state_dict(state, hf.config, layout="half", device="cpu")


def test_a_state_dict_that_does_not_fit_is_refused():
    hf = hf_llama()
    state = dict(hf.state_dict())
    del state["model.layers.1.mlp.up_proj.weight"]
    with pytest.raises(ValueError, match="missing.*up_proj"):
        from_hf_state_dict(state, hf.config, layout="half", device="cpu")
    state = {**hf.state_dict(), "model.layers.2.mlp.up_proj.weight": torch.zeros(96, 64)}
    with pytest.raises(ValueError, match="unexpected.*layers.2"):
        from_hf_state_dict(state, hf.config, layout="half", device="cpu")
    mixed = {**hf.state_dict(), "model.norm.weight": torch.ones(64, dtype=torch.float64)}
    with pytest.raises(TypeError, match="one floating dtype"):
        from_hf_state_dict(mixed, hf.config, layout="half", device="cpu")


def test_older_configs_with_rope_scaling_and_rope_theta_are_read_too():
    scaling = scaling_from_hf({"type": "linear", "factor": 2.0}, 64)
    assert scaling == RopeScaling("linear", 2.0)
    config = {**hf_llama().config.to_dict(), "rope_parameters": None, "rope_theta": 5e5, "rope_scaling": {"rope_type": "dynamic", "factor": 2.0}}
    ours = config_from_hf(config, layout="half", device="cpu")
    assert ours.base == 5e5 and ours.scaling == RopeScaling("dynamic", 2.0, original_max_len=64)
