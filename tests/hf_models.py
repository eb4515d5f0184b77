"""Tiny random Hugging Face Llama models built in code (nothing is downloaded), and rope_lib models loaded from them:
vocabulary 97, width 64, 4 query heads of 16 coordinates sharing 2 key/value heads, 2 layers. Shared by
test_llama.py and test_hf.py."""

import torch

from rope_lib import from_hf_state_dict

VOCAB, ORIGINAL = 97, 16


LONG = 40
"""The sequences of the scaling tests: 40 tokens, past the original context of 16 positions."""


ROPE_CASES = {
    "default": ({"rope_type": "default", "rope_theta": 10000.0}, 64),
    "linear": ({"rope_type": "linear", "rope_theta": 10000.0, "factor": 4.0}, ORIGINAL),
    "dynamic": ({"rope_type": "dynamic", "rope_theta": 10000.0, "factor": 4.0}, ORIGINAL),
    "yarn": ({"rope_type": "yarn", "rope_theta": 10000.0, "factor": 4.0, "original_max_position_embeddings": ORIGINAL}, 4 * ORIGINAL),
    "llama3": (
        {"rope_type": "llama3", "rope_theta": 500000.0, "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
         "original_max_position_embeddings": ORIGINAL},
        8 * ORIGINAL,
    ),
    "longrope": (
        {"rope_type": "longrope", "rope_theta": 10000.0, "factor": 4.0, "original_max_position_embeddings": ORIGINAL,
         "short_factor": [1.0 + 0.125 * i for i in range(8)], "long_factor": [1.0 + 0.75 * i for i in range(8)]},
        4 * ORIGINAL,
    ),
    "proportional": ({"rope_type": "proportional", "rope_theta": 10000.0, "partial_rotary_factor": 0.5}, 64),
}
"""Hugging Face's rope_parameters of each type, and the max_position_embeddings that goes with them (heads of 16
coordinates: 8 pairs, so LongRoPE's factor sets hold 8 factors each)."""


def hf_llama(rope="default", *, n_kv_heads=2, tie=False, seed=0):
    from transformers import LlamaConfig, LlamaForCausalLM

    params, positions = ROPE_CASES[rope]
    config = LlamaConfig(
        vocab_size=VOCAB, hidden_size=64, intermediate_size=96, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=n_kv_heads, max_position_embeddings=positions, rope_parameters=dict(params),
        tie_word_embeddings=tie, bos_token_id=None, eos_token_id=None, pad_token_id=None,
        initializer_range=0.1,  # not 0.02: attention far from uniform, so that position matters to the logits
    )
    torch.manual_seed(seed)
    return LlamaForCausalLM(config).eval()


def ours_from(hf, layout="half", **kwargs):
    kwargs = {"max_seq_len": 64, "device": "cpu", **kwargs}
    return from_hf_state_dict(hf.state_dict(), hf.config, layout=layout, **kwargs)


def tokens(batch=2, length=LONG, seed=1):
    return torch.randint(0, VOCAB, (batch, length), generator=torch.Generator().manual_seed(seed))
