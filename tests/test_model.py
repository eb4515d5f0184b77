"""`rope_lib.Model`, the whole decoder, against Hugging Face's `LlamaForCausalLM` with the same weights.

Every Hugging Face model here is built from a tiny random `LlamaConfig` in code (nothing is downloaded):
vocabulary 97, width 64, 4 query heads of 16 coordinates sharing 2 key/value heads, 2 layers.
"""

import pytest
import torch

import rope_lib
from rope_lib import Model, ModelConfig, RopeScaling, config_from_hf, from_hf_state_dict, permute_rows_to_interleaved, scaling_from_hf

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


def next_token_loss(model, x):
    """The cross-entropy of predicting each token of x from those before it, in one causal pass without the cache."""
    logits = model(x, use_cache=False)
    return torch.nn.functional.cross_entropy(logits[:, :-1].reshape(-1, VOCAB), x[:, 1:].reshape(-1))


def training_losses(model, x, steps):
    """The loss before each of `steps` AdamW steps (lr 1e-2) on the same batch x."""
    optimiser = torch.optim.AdamW(model.parameters(), lr=1e-2)
    losses = []
    for _ in range(steps):
        loss = next_token_loss(model, x)
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        losses.append(loss.item())
    return losses


@pytest.mark.parametrize("layout", ["half", "interleaved"])
@pytest.mark.parametrize("rope", list(ROPE_CASES))
def test_logits_match_hugging_face(rope, layout):
    hf = hf_llama(rope)
    ours = ours_from(hf, layout, max_batch_size=2)
    x = tokens()
    with torch.no_grad():
        expected = hf(x).logits
        full, cached = ours(x, use_cache=False), ours(x)
    assert full.dtype == torch.float32 and full.shape == (2, LONG, VOCAB)
    torch.testing.assert_close(full, expected, rtol=0, atol=1e-4)
    torch.testing.assert_close(cached, expected, rtol=0, atol=1e-4)


@pytest.mark.parametrize("rope, method", [(r, r) for r in ("linear", "dynamic", "yarn", "llama3", "longrope", "proportional")])
def test_rope_parameters_map_to_the_rule_of_the_same_name(rope, method):
    scaling = ours_from(hf_llama(rope)).config.scaling
    assert isinstance(scaling, RopeScaling) and scaling.method == method
    assert ours_from(hf_llama("default")).config.scaling is None


@pytest.mark.parametrize("layout", ["half", "interleaved"])
@pytest.mark.parametrize("length", [ORIGINAL, ORIGINAL + 1])
def test_longrope_takes_its_long_factors_past_the_trained_length_as_hugging_face_does(length, layout):
    """At T = L the short factor set, at T = L + 1 the long one, for every position: cos and sin and the logits of
    a full pass equal Hugging Face's on both sides of the boundary."""
    hf = hf_llama("longrope")
    ours = ours_from(hf, layout)
    x = tokens(1, length)
    with torch.no_grad():
        hf_cos, hf_sin = hf.model.rotary_emb(torch.zeros(1, dtype=torch.float32), torch.arange(length)[None])  # (1, T, D)
        cos, sin = ours.rope(torch.arange(length), seq_len=length)  # (T, D/2)
        torch.testing.assert_close(cos, hf_cos[0, :, :8], rtol=0, atol=1e-6)
        torch.testing.assert_close(sin, hf_sin[0, :, :8], rtol=0, atol=1e-6)
        expected = hf(x).logits
        torch.testing.assert_close(ours(x, use_cache=False), expected, rtol=0, atol=1e-4)
        ours.reset_cache()
        torch.testing.assert_close(ours(x), expected, rtol=0, atol=1e-4)


@pytest.mark.parametrize("layout", ["half", "interleaved"])
def test_longrope_decoding_across_the_boundary_matches_hugging_face(layout):
    """A prompt just short of L, then steps past it: each step past L turns its query and key with the long set,
    while the keys cached before keep the rotation they were stored with (Hugging Face's cache does the same)."""
    hf = hf_llama("longrope")
    prompt = tokens(1, ORIGINAL - 2)
    expected = hf.generate(prompt, max_new_tokens=6, do_sample=False)[:, prompt.shape[1]:]
    torch.testing.assert_close(ours_from(hf, layout).generate(prompt, 6), expected, rtol=0, atol=0)


@pytest.mark.parametrize("layout", ["half", "interleaved"])
@pytest.mark.parametrize("n_kv_heads", [4, 2])
def test_greedy_generation_matches_hugging_face_token_for_token(layout, n_kv_heads):
    hf = hf_llama(n_kv_heads=n_kv_heads)
    ours = ours_from(hf, layout)
    prompt = tokens(1, 7)
    theirs = hf.generate(prompt, max_new_tokens=30, min_new_tokens=30, do_sample=False)[:, 7:]
    mine = ours.generate(prompt, 30)
    assert mine.shape == (1, 30) and mine.dtype == torch.int64
    assert mine.tolist() == theirs.tolist()


def test_the_end_token_stops_generation_where_hugging_face_stops():
    hf = hf_llama()
    ours = ours_from(hf)
    prompt = tokens(1, 7)
    greedy = ours.generate(prompt, 30)[0].tolist()
    eos = greedy[5]
    stop = greedy.index(eos) + 1  # the first time the end token comes
    theirs = hf.generate(prompt, max_new_tokens=30, do_sample=False, eos_token_id=eos, pad_token_id=eos)[0, 7:].tolist()
    mine = ours.generate(prompt, 30, eos_token_id=eos)[0].tolist()
    assert mine == theirs == greedy[:stop]


def test_a_batch_stops_when_every_sequence_has_ended_and_pads_with_the_end_token():
    ours = ours_from(hf_llama(), max_batch_size=2)
    prompts = tokens(2, 5)
    free = ours.generate(prompts, 20)
    eos = int(free[0, 2])
    ended = ours.generate(prompts, 20, eos_token_id=eos)
    for row, out in zip(free.tolist(), ended.tolist()):
        stop = row.index(eos) + 1 if eos in row else 20
        assert out[:stop] == row[:stop] and set(out[stop:]) <= {eos}
    assert ended.shape[1] == max(row.index(eos) + 1 if eos in row else 20 for row in free.tolist())


def test_bfloat16_logits_stay_as_close_to_float32_as_hugging_face_bfloat16_does():
    """bf16 keeps 8 significant bits, so each of the two models rounds every activation to about 0.4 %,
    in a different order: they cannot agree to float32's 1e-4. What must hold is that ours is as good a
    bf16 model as Hugging Face's: its distance from the float32 logits at most 1.5 times theirs, and
    the two within 0.1 of each other (logits here are of order 1)."""
    hf = hf_llama()
    x = tokens()
    with torch.no_grad():
        exact = hf(x).logits
        hf_bf16 = hf.to(torch.bfloat16)
        theirs = hf_bf16(x).logits.float()
        ours = ours_from(hf_bf16, "interleaved", max_batch_size=2)
        assert ours.tok_embeddings.weight.dtype == torch.bfloat16
        mine = ours(x)
    assert mine.dtype == torch.float32
    their_error, my_error = (theirs - exact).abs().max().item(), (mine - exact).abs().max().item()
    assert 0 < my_error <= 1.5 * their_error
    assert (mine - theirs).abs().max().item() < 0.1


@pytest.mark.parametrize("layout", ["half", "interleaved"])
def test_a_training_step_gives_hugging_faces_gradients(layout):
    hf = hf_llama().train()
    ours = ours_from(hf, layout, max_batch_size=2).train()
    x = tokens(2, 24)
    hf(x, labels=x).loss.backward()
    next_token_loss(ours, x).backward()
    theirs = dict(hf.named_parameters())

    def grad(name):
        return theirs[name].grad

    expected = {
        "tok_embeddings.weight": grad("model.embed_tokens.weight"),
        "layers.0 W_q": grad("model.layers.0.self_attn.q_proj.weight"),
        "layers.1 W_k": grad("model.layers.1.self_attn.k_proj.weight"),
        "layers.0 W_v": grad("model.layers.0.self_attn.v_proj.weight"),
        "layers.1.feed_forward.w2.weight": grad("model.layers.1.mlp.down_proj.weight"),
        "layers.0.ffn_norm.weight": grad("model.layers.0.post_attention_layernorm.weight"),
        "output.weight": grad("lm_head.weight"),
    }
    if layout == "interleaved":  # our rows are theirs permuted, so are the rows of the gradients
        for key, heads in (("layers.0 W_q", 4), ("layers.1 W_k", 2)):
            expected[key] = permute_rows_to_interleaved(expected[key], heads)
    ours_grads = {name: p.grad for name, p in ours.named_parameters()}
    for i, layer in enumerate(ours.layers):  # wqkv's gradient, its rows split as W_q, W_k and W_v
        a = layer.attention
        rows = [a.n_heads * a.head_dim, a.n_kv_heads * a.head_dim, a.n_kv_heads * a.head_dim]
        ours_grads.update(zip((f"layers.{i} W_q", f"layers.{i} W_k", f"layers.{i} W_v"), a.wqkv.weight.grad.split(rows)))
    for name, want in expected.items():
        torch.testing.assert_close(ours_grads[name], want, rtol=1e-4, atol=1e-6, msg=name)


def test_training_steps_lower_the_loss():
    model = Model(ModelConfig(vocab_size=VOCAB, dim=32, n_layers=2, n_heads=4, hidden_dim=64, max_seq_len=32, device="cpu"))
    losses = training_losses(model, tokens(4, 16), 10)
    assert losses[-1] < 0.7 * losses[0]


@pytest.mark.parametrize("layout", ["half", "interleaved"])
def test_decoding_one_token_at_a_time_equals_a_full_pass_at_every_step(layout):
    ours = ours_from(hf_llama("yarn"), layout, max_batch_size=2)
    x = tokens(2, 24)
    with torch.no_grad():
        ours(x[:, :5])  # a prefill
        for t in range(5, 24):
            step = ours(x[:, t : t + 1], start_pos=t)[:, 0]  # (B, vocab)
            full = ours(x[:, : t + 1], use_cache=False)[:, -1]
            torch.testing.assert_close(step, full, rtol=0, atol=1e-5)


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


def metas_names(state: dict, model) -> dict:
    """A state dict of `model` under Meta's separate names: wqkv split into wq, wk, wv and w13 into w1, w3."""
    out = {}
    for key, value in state.items():
        layer = model.layers[int(key.split(".")[1])] if key.startswith("layers.") else None
        if key.endswith("attention.wqkv.weight"):
            out.update(zip((key.replace("wqkv", n) for n in ("wq", "wk", "wv")), layer.attention.qkv_weights()))
        elif key.endswith("feed_forward.w13.weight"):
            out.update(zip((key.replace("w13", n) for n in ("w1", "w3")), value.chunk(2)))
        else:
            out[key] = value
    return out


def test_metas_separate_weights_load_into_the_stacked_matrices():
    """W_q, W_k, W_v (and w1, w3) under Meta's names load into wqkv (and w13), stacked in that order: the loaded
    model computes what the original does; the same weights with W_k and W_v swapped do not load as the original."""
    ours = ours_from(hf_llama())
    meta_named = metas_names(ours.state_dict(), ours)
    assert not any("wqkv" in key or "w13" in key for key in meta_named)
    again = Model(ours.config)
    again.load_state_dict(meta_named, strict=True)
    x = tokens(1, 12)
    with torch.no_grad():
        torch.testing.assert_close(again(x, use_cache=False), ours(x, use_cache=False), rtol=0, atol=0)
    swapped = dict(meta_named)
    swapped["layers.0.attention.wk.weight"], swapped["layers.0.attention.wv.weight"] = meta_named["layers.0.attention.wv.weight"], meta_named["layers.0.attention.wk.weight"]
    again.load_state_dict(swapped, strict=True)
    with torch.no_grad():
        assert (again(x, use_cache=False) - ours(x, use_cache=False)).abs().max() > 1e-3
    del meta_named["layers.1.attention.wv.weight"]  # one of the three missing: nothing is stacked, the load names what is wrong
    with pytest.raises(RuntimeError, match="layers.1.attention.wqkv.weight"):
        Model(ours.config).load_state_dict(meta_named, strict=True)


def test_tied_embeddings_share_one_matrix():
    hf = hf_llama(tie=True)
    ours = ours_from(hf)
    assert ours.output.weight is ours.tok_embeddings.weight
    x = tokens(1, 12)
    with torch.no_grad():
        torch.testing.assert_close(ours(x), hf(x).logits, rtol=0, atol=1e-4)


def test_the_config_can_be_read_from_a_dict():
    hf = hf_llama("llama3")
    assert config_from_hf(hf.config.to_dict(), layout="half", device="cpu") == config_from_hf(hf.config, layout="half", device="cpu")


def test_reset_cache_forgets_every_layer():
    ours = ours_from(hf_llama())
    ours(tokens(1, 6))
    assert all(layer.attention.cache.k.abs().sum() > 0 for layer in ours.layers)
    ours.reset_cache()
    assert all(layer.attention.cache.k.abs().sum() == 0 and layer.attention.cache.v.abs().sum() == 0 for layer in ours.layers)


def sampled(model, prompt, seed, **kwargs):
    return model.generate(prompt, 20, temperature=kwargs.pop("temperature", 1.0), generator=torch.Generator().manual_seed(seed), **kwargs)


def test_sampling_is_reproducible_with_a_seed_and_top_k_one_is_greedy():
    ours = ours_from(hf_llama())
    prompt = tokens(1, 6)
    assert sampled(ours, prompt, 3).tolist() == sampled(ours, prompt, 3).tolist()
    assert len({tuple(sampled(ours, prompt, seed)[0].tolist()) for seed in range(4)}) > 1  # the seed matters
    assert sampled(ours, prompt, 5, top_k=1, temperature=2.0).tolist() == ours.generate(prompt, 20).tolist()


def test_top_k_samples_only_the_k_most_likely_tokens():
    ours = ours_from(hf_llama())
    prompt = tokens(1, 6)
    with torch.no_grad():
        allowed = set(torch.topk(ours(prompt, use_cache=False)[0, -1], 3).indices.tolist())
    firsts = {ours.generate(prompt, 1, temperature=5.0, top_k=3, generator=torch.Generator().manual_seed(s)).item() for s in range(40)}
    assert firsts <= allowed and len(firsts) > 1


def test_sampling_stops_at_the_end_token():
    ours = ours_from(hf_llama())
    prompt = tokens(1, 6)
    free = sampled(ours, prompt, 7)[0].tolist()
    eos = free[4]
    assert sampled(ours, prompt, 7, eos_token_id=eos)[0].tolist() == free[: free.index(eos) + 1]


CONFIG = {"vocab_size": VOCAB, "dim": 64, "n_layers": 2, "n_heads": 4, "hidden_dim": 96, "device": "cpu"}


@pytest.mark.parametrize(
    "change, error, words",
    [
        ({"vocab_size": 0}, ValueError, "vocab_size"),
        ({"dim": 64.0}, TypeError, "dim"),
        ({"n_layers": True}, TypeError, "n_layers"),
        ({"n_heads": 5}, ValueError, "n_heads"),
        ({"n_kv_heads": 3}, ValueError, "n_kv_heads"),
        ({"dim": 12, "n_heads": 4}, ValueError, "head_dim"),
        ({"hidden_dim": -1}, ValueError, "hidden_dim"),
        ({"norm_eps": 0.0}, ValueError, "norm_eps"),
        ({"max_seq_len": 0}, ValueError, "max_seq_len"),
        ({"max_batch_size": 0}, ValueError, "max_batch_size"),
        ({"base": 1.0}, ValueError, "base"),
        ({"layout": "meta"}, ValueError, "layout"),
        ({"scaling": "yarn"}, TypeError, "scaling"),
        ({"tie_embeddings": 1}, TypeError, "tie_embeddings"),
        ({"dtype": "float32"}, TypeError, "dtype"),
        ({"device": "tpu"}, ValueError, "device"),
    ],
)
def test_a_bad_config_names_the_argument(change, error, words):
    with pytest.raises(error, match=words):
        ModelConfig(**{**CONFIG, **change})


@pytest.fixture(scope="module")
def small():
    return Model(ModelConfig(**CONFIG, max_seq_len=16, max_batch_size=2))


@pytest.mark.parametrize(
    "call, error, words",
    [
        (lambda m: m([[1, 2]]), TypeError, "tokens must be a torch.Tensor"),
        (lambda m: m(torch.ones(1, 3)), TypeError, "tokens must hold token ids"),
        (lambda m: m(torch.ones(3, dtype=torch.int64)), ValueError, r"tokens must have shape \(B, T\)"),
        (lambda m: m(torch.full((1, 3), VOCAB)), ValueError, "vocab_size"),
        (lambda m: m(torch.full((1, 3), -1)), ValueError, "vocab_size"),
        (lambda m: m(torch.ones(1, 3, dtype=torch.int64), start_pos=-1), ValueError, "start_pos"),
        (lambda m: m(torch.ones(1, 3, dtype=torch.int64), start_pos=14), ValueError, "max_seq_len"),
        (lambda m: m(torch.ones(3, 3, dtype=torch.int64)), ValueError, "max_batch_size"),
        (lambda m: m(torch.ones(1, 3, dtype=torch.int64), use_cache=0), TypeError, "use_cache"),
        (lambda m: m(torch.ones(1, 3, dtype=torch.int64), start_pos=2, use_cache=False), ValueError, "start_pos must be 0"),
        (lambda m: m.generate(torch.ones(1, 3, dtype=torch.int64), 0), ValueError, "max_new_tokens"),
        (lambda m: m.generate(torch.ones(1, 3, dtype=torch.int64), 15), ValueError, "max_seq_len"),
        (lambda m: m.generate(torch.ones(1, 3, dtype=torch.int64), 2, temperature=-1.0), ValueError, "temperature"),
        (lambda m: m.generate(torch.ones(1, 3, dtype=torch.int64), 2, temperature="hot"), TypeError, "temperature"),
        (lambda m: m.generate(torch.ones(1, 3, dtype=torch.int64), 2, top_k=3), ValueError, "temperature > 0"),
        (lambda m: m.generate(torch.ones(1, 3, dtype=torch.int64), 2, temperature=1.0, top_k=0), ValueError, "top_k"),
        (lambda m: m.generate(torch.ones(1, 3, dtype=torch.int64), 2, temperature=1.0, top_k=VOCAB + 1), ValueError, "top_k"),
        (lambda m: m.generate(torch.ones(1, 3, dtype=torch.int64), 2, temperature=1.0, generator=0), TypeError, "generator"),
        (lambda m: m.generate(torch.ones(1, 3, dtype=torch.int64), 2, eos_token_id=VOCAB), ValueError, "eos_token_id"),
        (lambda m: m.generate(torch.ones(1, 3), 2), TypeError, "prompt_tokens"),
    ],
)
def test_bad_calls_name_the_argument(small, call, error, words):
    with pytest.raises(error, match=words):
        call(small)


def test_the_cache_is_used_in_order_or_not_at_all(small):
    """Each misuse would read keys that are not this sequence's: a step after a gap, a step with a larger batch
    than the prefill's (row 1 has no past), a step that goes on with a sequence the cache no longer holds (a new
    prefill replaced it), a step after reset_cache. Each is refused by the model, which checks every write before
    its layers' caches take it."""
    a, b, pair = torch.randint(0, VOCAB, (1, 6)), torch.randint(0, VOCAB, (1, 3)), torch.randint(0, VOCAB, (2, 1))
    step = torch.randint(0, VOCAB, (1, 1))
    small(a)
    with pytest.raises(ValueError, match=r"start_pos=7 would leave a gap"):
        small(step, start_pos=7)
    with pytest.raises(ValueError, match=r"the write has 2 sequences, the cache holds 1"):
        small(pair, start_pos=6)
    small(b)  # another sequence: the cache now holds its 3 positions, and a's are stale
    with pytest.raises(ValueError, match=r"start_pos=6 would leave a gap: the cache holds positions 0 … 2"):
        small(step, start_pos=6)
    small.reset_cache()
    with pytest.raises(ValueError, match=r"the cache is empty"):
        small(step, start_pos=3)


def test_a_tiny_temperature_samples_the_most_likely_token(small):
    """logits / 1e-40 overflows; the sampler divides the logits less their maximum, so any temperature above 0
    samples, and a tiny one picks the argmax."""
    prompt = torch.randint(0, VOCAB, (2, 4), generator=torch.Generator().manual_seed(3))
    greedy = small.generate(prompt, 5)
    small.reset_cache()
    tiny = small.generate(prompt, 5, temperature=1e-40, generator=torch.Generator().manual_seed(0))
    assert torch.equal(tiny, greedy)


def test_generated_tokens_are_ordinary_tensors(small):
    """What generate returns can be changed in place and used as a training target (inference-mode tensors can do
    neither)."""
    prompt = torch.randint(0, VOCAB, (1, 4), generator=torch.Generator().manual_seed(3))
    out = small.generate(prompt, 3)
    assert not out.is_inference()
    logits = small(torch.cat([prompt, out[:, :-1]], dim=1), use_cache=False)[:, -3:]  # (1, 3, vocab)
    torch.nn.functional.cross_entropy(logits.flatten(0, 1), out.flatten()).backward()
    out[0, 0] = 0


def test_a_model_needs_a_model_config():
    with pytest.raises(TypeError, match="config must be a rope_lib.ModelConfig"):
        Model(CONFIG)


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


def test_rms_norm_is_the_formula():
    norm = rope_lib.llama.RMSNorm(8, 1e-6, device="cpu", dtype=torch.float32)
    with torch.no_grad():
        norm.weight.copy_(torch.arange(1.0, 9.0))
    x = torch.randn(3, 8)
    expected = x / torch.sqrt((x**2).mean(-1, keepdim=True) + 1e-6) * torch.arange(1.0, 9.0)
    torch.testing.assert_close(norm(x), expected)


ENCODINGS = ["rope", "none", "sinusoidal", "learned", "alibi"]


def tiny(encoding, **kwargs):
    torch.manual_seed(0)
    config = {**CONFIG, "n_kv_heads": 2, "max_seq_len": 32, "max_batch_size": 2, "position_encoding": encoding, **kwargs}
    return Model(ModelConfig(**config))


def first_block_input(model, x, start_pos=0, **kwargs):
    """What the first block receives: the embeddings with whatever position vectors were added."""
    seen = []
    handle = model.layers[0].register_forward_pre_hook(lambda module, args: seen.append(args[0]))
    try:
        model(x, start_pos, **kwargs)
    finally:
        handle.remove()
    return seen[0]


def sinusoidal_row(m, d):
    """Vaswani et al. 2017, §3.5: PE(m, 2i) = sin(m / 10000^(2i/d)), PE(m, 2i+1) = cos(m / 10000^(2i/d))."""
    import math

    row = []
    for j in range(d):
        angle = m / 10000 ** (2 * (j // 2) / d)
        row.append(math.sin(angle) if j % 2 == 0 else math.cos(angle))
    return torch.tensor(row)


@pytest.mark.parametrize("start", [0, 9])
def test_the_sinusoidal_encoding_adds_the_papers_table_at_each_position(start):
    model = tiny("sinusoidal")
    x = tokens(2, 5)
    with torch.no_grad():
        if start:
            model(tokens(2, start, seed=4))  # a prefill, so that the step at `start` reads a filled cache
        h = first_block_input(model, x, start)
    expected = model.tok_embeddings.weight[x] + torch.stack([sinusoidal_row(start + t, 64) for t in range(5)])
    torch.testing.assert_close(h, expected, rtol=0, atol=1e-6)


def test_the_sinusoidal_encoding_goes_on_past_max_seq_len_without_the_cache():
    model = tiny("sinusoidal")
    x = tokens(1, 40)  # max_seq_len is 32
    with torch.no_grad():
        h = first_block_input(model, x, use_cache=False)
        torch.testing.assert_close(h[0, 35], model.tok_embeddings.weight[x[0, 35]] + sinusoidal_row(35, 64), rtol=0, atol=1e-6)
        torch.testing.assert_close(model(x, use_cache=False)[:, :20], model(x[:, :20], use_cache=False), rtol=0, atol=1e-5)


@pytest.mark.parametrize("start", [0, 9])
def test_the_learned_encoding_adds_its_table_row_at_each_position(start):
    model = tiny("learned")
    assert model.pos_embeddings.weight.shape == (32, 64)
    x = tokens(2, 5)
    with torch.no_grad():
        if start:
            model(tokens(2, start, seed=4))
        h = first_block_input(model, x, start)
    rows = model.pos_embeddings.weight
    expected = torch.stack([torch.stack([model.tok_embeddings.weight[x[b, t]] + rows[start + t] for t in range(5)]) for b in range(2)])
    torch.testing.assert_close(h, expected, rtol=0, atol=0)


def test_the_learned_encoding_refuses_positions_past_its_table():
    model = tiny("learned")
    with pytest.raises(ValueError, match="learned position table has max_seq_len=32 rows"):
        model(tokens(1, 33), use_cache=False)
    with pytest.raises(ValueError, match="max_seq_len"):
        model(tokens(1, 3), start_pos=30)


@pytest.mark.parametrize("encoding", ["none", "alibi", "sinusoidal", "learned"])
def test_only_rope_rotates(encoding, monkeypatch):
    import rope_lib.llama

    def no_rotation(*args, **kwargs):
        raise AssertionError(f"{encoding} must not rotate")

    monkeypatch.setattr(rope_lib.llama, "rotate_pairs", no_rotation)
    model = tiny(encoding)
    assert model.rope is None
    with torch.no_grad():
        model(tokens(1, 6), use_cache=False)
        model(tokens(1, 6))
    with pytest.raises(AssertionError, match="must not rotate"):
        tiny("rope")(tokens(1, 6))  # the planted check: RoPE does reach the patched rotation


def test_nope_blocks_score_the_same_whatever_the_positions():
    """With no position encoding the causal mask alone knows the order: the model's blocks give the same
    scores to a block of tokens wherever it is placed."""
    from rope_lib.teach.llama_implementation import layer_scores

    model = tiny("none")
    x = torch.randn(1, 6, 64)
    with torch.no_grad():
        shifted, plain = (layer_scores(model, 0, x, torch.arange(6) + shift) for shift in (100, 0))
        torch.testing.assert_close(shifted, plain, rtol=0, atol=0)


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_each_encoding_decodes_one_token_at_a_time_as_a_full_pass(encoding):
    model = tiny(encoding)
    x = tokens(2, 20)
    with torch.no_grad():
        model(x[:, :4])
        for t in range(4, 20):
            step = model(x[:, t : t + 1], start_pos=t)[:, 0]
            full = model(x[:, : t + 1], use_cache=False)[:, -1]
            torch.testing.assert_close(step, full, rtol=0, atol=1e-5)


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_each_encoding_trains_with_finite_gradients_on_every_parameter(encoding):
    model = tiny(encoding).train()
    x = tokens(2, 16)
    next_token_loss(model, x).backward()
    for name, parameter in model.named_parameters():
        assert parameter.grad is not None and torch.isfinite(parameter.grad).all() and parameter.grad.abs().sum() > 0, name
    if encoding == "learned":
        # every position whose logits or keys reach the loss (0 … 14; the last one's logits are not scored)
        assert model.pos_embeddings.weight.grad[:15].abs().sum(-1).min() > 0


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_each_encoding_learns_and_generates_greedily_as_repeated_full_passes(encoding):
    model = tiny(encoding)
    losses = training_losses(model, tokens(4, 16), 8)
    assert losses[-1] < 0.7 * losses[0]
    prompt = tokens(1, 5, seed=2)
    generated = model.generate(prompt, 10)
    sequence = prompt
    with torch.no_grad():
        for _ in range(10):
            sequence = torch.cat([sequence, model(sequence, use_cache=False)[:, -1].argmax(-1, keepdim=True)], dim=1)
    assert generated.tolist() == sequence[:, 5:].tolist()


@pytest.mark.parametrize(
    "change, words",
    [
        ({"position_encoding": "rotary"}, r"position_encoding must be one of \('rope', 'none', 'sinusoidal', 'learned', 'alibi'\), got 'rotary'"),
        ({"position_encoding": 0}, "position_encoding must be one of"),
        ({"position_encoding": "alibi", "scaling": RopeScaling("linear", 2.0)}, "RoPE's settings"),
        ({"position_encoding": "none", "base": 5e5}, "RoPE's settings"),
        ({"position_encoding": "learned", "layout": "half"}, "RoPE's settings"),
    ],
)
def test_a_bad_position_encoding_is_refused(change, words):
    with pytest.raises(ValueError, match=words):
        ModelConfig(**{**CONFIG, **change})
