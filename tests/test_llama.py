"""rope_lib.llama: the decoder against Hugging Face's `LlamaForCausalLM` with the same weights (tests/hf_models.py),
its attention block against Meta's module, the KV cache, sampling, the position encodings other than RoPE, and
every bad config or call refused by name.

An attention test runs the block of a one-layer model as `Model.forward` runs it (tests/attention_block.py).
"""

import pytest
import torch

import rope_lib
from rope_lib import Model, ModelConfig, permute_rows_to_interleaved, RopeScaling
from rope_lib.llama import causal_mask, default_device, KVCache

from attention_block import Block
from hf_models import hf_llama, LONG, ORIGINAL, ours_from, ROPE_CASES, tokens, VOCAB


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
        (lambda m: m.generate(torch.ones(1, 3, dtype=torch.int64), 2, compile=1), TypeError, "compile must be True or False"),
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
        ({"position_encoding": None}, "position_encoding must be one of"),
        ({"position_encoding": "none", "scaling": RopeScaling("linear", 2.0)}, "RoPE's settings"),
        ({"position_encoding": "alibi", "rotary_dim": 4}, "RoPE's settings"),
    ],
)
def test_a_bad_position_encoding_is_refused(change, words):
    with pytest.raises(ValueError, match=words):
        ModelConfig(**{**CONFIG, **change})


make = Block


@pytest.mark.parametrize("layout", ["interleaved", "half"])
@pytest.mark.parametrize("n_kv_heads", [4, 2, 1])
@pytest.mark.parametrize("k", [1, 3, 8])
def test_prefill_plus_cached_steps_equals_one_full_pass(layout, n_kv_heads, k):
    attention = make(layout=layout, n_kv_heads=n_kv_heads)
    x = torch.randn(2, 12, 32, dtype=torch.float64)
    full = attention(x, start_pos=0)
    attention.reset_cache()
    pieces = [attention(x[:, : 12 - k], start_pos=0)]
    pieces += [attention(x[:, t : t + 1], start_pos=t) for t in range(12 - k, 12)]
    torch.testing.assert_close(torch.cat(pieces, dim=1), full, rtol=0, atol=1e-12)


BLOCKS = {"eager": False, "fused": True}


@pytest.mark.parametrize("block", BLOCKS)
@pytest.mark.parametrize("use_cache", [True, False])
def test_a_block_trains_step_after_step(block, use_cache):
    """The cache once kept the autograd graph, so the second backward() raised "Trying to backward
    through the graph a second time", even after reset_cache(). Now several optimiser steps run and
    the loss falls."""
    torch.manual_seed(0)
    attention = Block(torch.float32, dim=16, n_heads=2, max_seq_len=8, fused=BLOCKS[block])
    optimiser = torch.optim.SGD(attention.parameters(), lr=0.1)
    x, target = torch.randn(1, 8, 16), torch.randn(1, 8, 16)
    losses = []
    for _ in range(5):
        optimiser.zero_grad()
        loss = (attention(x, use_cache=use_cache) - target).pow(2).mean()
        loss.backward()
        optimiser.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0]


@pytest.mark.parametrize("block", BLOCKS)
def test_gradients_with_and_without_the_cache_agree_for_a_prefill(block):
    """A prefill at position 0 computes the same function with or without the cache, so the same gradient."""
    torch.manual_seed(0)
    attention = Block(dim=16, n_heads=2, n_kv_heads=1, max_seq_len=8, fused=BLOCKS[block])
    x = torch.randn(1, 6, 16, dtype=torch.float64)
    grads = []
    for use_cache in (True, False):
        attention.zero_grad()
        attention(x, use_cache=use_cache).sin().sum().backward()
        grads.append([p.grad.clone() for p in attention.parameters()])
    for with_cache, without in zip(*grads):
        torch.testing.assert_close(with_cache, without, rtol=0, atol=1e-12)


def test_without_the_cache_the_tokens_attend_to_each_other_only():
    """use_cache=False neither reads nor writes the cache: a full pass at start_pos equals a fresh block's
    prefill at start_pos with the cache, and the cache stays empty."""
    attention = make()
    x = torch.randn(2, 5, 32, dtype=torch.float64)
    out = attention(x, start_pos=7, use_cache=False)
    cache = attention.attention.cache
    assert cache.k.abs().sum() == 0 and cache.v.abs().sum() == 0
    by_hand_scores = attention.scores(x, range(7, 12)) + causal_mask(5, 0).double()
    values = (x @ attention.attention.qkv_weights()[2].T).view(2, 5, 4, 8)
    expected = torch.einsum("bhts,bshd->bthd", torch.softmax(by_hand_scores, dim=-1), values).reshape(2, 5, 32)
    torch.testing.assert_close(out, attention.attention.wo(expected), rtol=0, atol=1e-12)


def test_positions_past_the_table_need_no_cache():
    """With use_cache=False nothing limits the positions to max_seq_len: the tables are computed for them.
    The model refuses a cached pass that would not fit."""
    attention = make(max_seq_len=4)
    x = torch.randn(1, 6, 32, dtype=torch.float64)
    with pytest.raises(ValueError, match="past the cache"):
        attention.model(torch.zeros(1, 6, dtype=torch.int64))
    torch.testing.assert_close(attention(x, start_pos=100, use_cache=False), attention(x, use_cache=False), rtol=0, atol=1e-12)


def test_causal_mask_hides_the_future_only():
    mask = causal_mask(3, 2)
    assert mask.shape == (3, 5)
    visible = mask == 0
    assert visible.tolist() == [[True, True, True, False, False], [True, True, True, True, False], [True] * 5]


def test_a_token_is_not_changed_by_later_tokens():
    attention = make()
    x = torch.randn(1, 10, 32, dtype=torch.float64)
    y = x.clone()
    y[:, 6:] = torch.randn(1, 4, 32, dtype=torch.float64)
    torch.testing.assert_close(attention(x)[:, :6], attention(y)[:, :6], rtol=0, atol=1e-12)


@pytest.mark.parametrize("layout", ["interleaved", "half"])
@pytest.mark.parametrize("shift", [1, 17, 1000, 123_456])
def test_scores_unchanged_when_every_position_shifts(layout, shift):
    attention = make(layout=layout)
    x = torch.randn(2, 9, 32, dtype=torch.float64)
    positions = torch.arange(9)
    torch.testing.assert_close(attention.scores(x, positions + shift), attention.scores(x, positions), rtol=0, atol=1e-9)
    assert not torch.allclose(attention.scores(x, positions.flip(0)), attention.scores(x, positions)), "order must matter"


def test_forward_scores_are_the_relative_scores():
    """With an empty cache and start_pos = 0, forward uses exactly `scores` (masked, softmaxed)."""
    attention = make()
    x = torch.randn(1, 6, 32, dtype=torch.float64)
    weights = torch.softmax(attention.scores(x, range(6)) + causal_mask(6, 0).double(), dim=-1)
    values = (x @ attention.attention.qkv_weights()[2].T).view(1, 6, 4, 8)
    expected = attention.attention.wo(torch.einsum("bhts,bshd->bthd", weights, values).reshape(1, 6, 32))
    torch.testing.assert_close(attention(x), expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_half_precision_module(dtype):
    attention = make(dtype=dtype)
    assert attention.model.rope.cos.dtype == torch.float32
    out = attention(torch.randn(1, 5, 32).to(dtype))
    assert out.dtype == dtype


def test_default_device_follows_cuda():
    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert default_device().type == expected
    config = ModelConfig(vocab_size=4, dim=16, n_layers=1, n_heads=2, hidden_dim=8, max_seq_len=4)
    assert Model(config).layers[0].attention.wqkv.weight.device.type == expected


@pytest.fixture(scope="module")
def meta_model_parallel(tmp_path_factory):
    """Meta's reference Attention uses fairscale's model-parallel layers: set them up for one process."""
    import torch.distributed as dist
    from fairscale.nn.model_parallel import initialize as fs_init

    if not dist.is_initialized():
        store = tmp_path_factory.mktemp("dist") / "store"
        dist.init_process_group("gloo", init_method=f"file://{store}", rank=0, world_size=1)
    if not fs_init.model_parallel_is_initialized():
        fs_init.initialize_model_parallel(1)
    yield
    fs_init.destroy_model_parallel()
    dist.destroy_process_group()


@pytest.mark.parametrize("n_kv_heads", [4, 2])
def test_matches_metas_reference_attention(meta_model_parallel, n_kv_heads):
    from llama_models.llama3 import model as meta
    from llama_models.llama3.args import ModelArgs

    dim, n_heads, theta = 64, 4, 10000.0
    ours = Block(torch.float32, dim=dim, n_heads=n_heads, n_kv_heads=n_kv_heads, max_seq_len=32, base=theta)
    theirs = meta.Attention(ModelArgs(dim=dim, n_heads=n_heads, n_kv_heads=n_kv_heads, max_batch_size=2, max_seq_len=32))
    with torch.no_grad():
        for name, weight in zip(("wq", "wk", "wv", "wo"), (*ours.attention.qkv_weights(), ours.attention.wo.weight)):
            getattr(theirs, name).weight.copy_(weight)
    freqs_cis = meta.precompute_freqs_cis(dim // n_heads, 64, theta)

    x = torch.randn(2, 20, dim, generator=torch.Generator().manual_seed(5))
    with torch.no_grad():
        for start, end in [(0, 12), (12, 13), (13, 20)]:
            seq = end - start
            mask = torch.triu(torch.full((seq, end), float("-inf")), diagonal=start + 1) if seq > 1 else None
            expected = theirs(x[:, start:end], start, freqs_cis[start:end], mask)
            torch.testing.assert_close(ours(x[:, start:end], start_pos=start), expected, rtol=1e-4, atol=1e-5)


def by_the_formula(block, x, bias):
    """Attention written out from the papers, slowly: per head h, scores q·k/√D + bias_h, the causal mask
    (keys j ≤ i), softmax, the weighted values, W_o. GQA: query head h reads key/value head h // (H / Hkv)."""
    attention = block.attention
    batch, seq, _ = x.shape
    heads, kv_heads, d = attention.n_heads, attention.n_kv_heads, attention.head_dim
    wq, wk, wv = attention.qkv_weights()
    q = (x @ wq.T).view(batch, seq, heads, d)
    k = (x @ wk.T).view(batch, seq, kv_heads, d)
    v = (x @ wv.T).view(batch, seq, kv_heads, d)
    out = torch.zeros(batch, seq, heads, d, dtype=x.dtype)
    for b in range(batch):
        for h in range(heads):
            g = h // (heads // kv_heads)
            for i in range(seq):
                scores = torch.stack([q[b, i, h] @ k[b, j, g] / d**0.5 + bias(h, i, j) for j in range(i + 1)])
                out[b, i, h] = torch.softmax(scores, dim=0) @ v[b, : i + 1, g]
    return out.reshape(batch, seq, heads * d) @ attention.wo.weight.T


def alibi_slope(h, heads):
    """Press et al. 2022, §3: for H heads (a power of two) head h (from 0) has slope 2^(−8(h+1)/H)."""
    return 2.0 ** (-8.0 * (h + 1) / heads)


@pytest.mark.parametrize("n_kv_heads", [4, 2])
def test_alibi_scores_and_outputs_are_the_papers_formula(n_kv_heads):
    attention = make(position_encoding="alibi", n_kv_heads=n_kv_heads)
    x = torch.randn(2, 7, 32, dtype=torch.float64)
    wq, wk, _ = attention.attention.qkv_weights()
    q = (x @ wq.T).view(2, 7, 4, 8)
    k = (x @ wk.T).view(2, 7, n_kv_heads, 8).repeat_interleave(4 // n_kv_heads, dim=2)
    positions = torch.arange(3, 10)
    expected = torch.empty(2, 4, 7, 7, dtype=torch.float64)
    for h in range(4):
        for i in range(7):
            for j in range(7):
                expected[:, h, i, j] = (q[:, i, h] * k[:, j, h]).sum(-1) / 8**0.5 - alibi_slope(h, 4) * (i - j)
    torch.testing.assert_close(attention.scores(x, positions), expected, rtol=0, atol=1e-12)
    want = by_the_formula(attention, x, lambda h, i, j: -alibi_slope(h, 4) * (i - j))
    torch.testing.assert_close(attention(x, use_cache=False), want, rtol=0, atol=1e-12)


@pytest.mark.parametrize("encoding", ["none", "alibi"])
@pytest.mark.parametrize("n_kv_heads", [4, 2])
def test_cached_steps_without_rotation_equal_one_full_pass(encoding, n_kv_heads):
    attention = make(position_encoding=encoding, n_kv_heads=n_kv_heads)
    x = torch.randn(2, 12, 32, dtype=torch.float64)
    full = attention(x, use_cache=False)
    with torch.no_grad():
        parts = [attention(x[:, :5], 0), attention(x[:, 5:8], 5), *(attention(x[:, t : t + 1], t) for t in range(8, 12))]
        torch.testing.assert_close(torch.cat(parts, dim=1), full, rtol=0, atol=1e-12)


def test_nope_scores_are_plain_dot_products_and_nothing_is_rotated(monkeypatch):
    import rope_lib.llama

    def no_rotation(*args, **kwargs):
        raise AssertionError("NoPE must not rotate")

    monkeypatch.setattr(rope_lib.llama, "rotate_pairs", no_rotation)
    attention = make(position_encoding="none", n_kv_heads=2)
    assert attention.model.rope is None
    x = torch.randn(2, 6, 32, dtype=torch.float64)
    wq, wk, _ = attention.attention.qkv_weights()
    q = (x @ wq.T).view(2, 6, 4, 8)
    k = (x @ wk.T).view(2, 6, 2, 8)
    plain = torch.einsum("bihd,bjhd->bhij", q, k.repeat_interleave(2, dim=2)) / 8**0.5
    for shift in (0, 5, 1000):
        torch.testing.assert_close(attention.scores(x, torch.arange(6) + shift), plain, rtol=0, atol=1e-12)
    want = by_the_formula(attention, x, lambda h, i, j: 0.0)
    torch.testing.assert_close(attention(x, use_cache=False), want, rtol=0, atol=1e-12)


def cache():
    """Two sequences of up to 8 positions, 2 key/value heads of 4 coordinates."""
    config = ModelConfig(vocab_size=4, dim=8, n_layers=1, n_heads=2, hidden_dim=8, max_batch_size=2, max_seq_len=8, device="cpu")
    return KVCache(config, torch.device("cpu"))


def test_update_stores_at_start_pos_and_returns_every_position_so_far(gen):
    kv = cache()
    k1, v1 = torch.randn(2, 2, 3, 4, generator=gen), torch.randn(2, 2, 3, 4, generator=gen)
    k2, v2 = torch.randn(2, 2, 1, 4, generator=gen), torch.randn(2, 2, 1, 4, generator=gen)
    keys, values = kv.update(0, k1, v1)
    assert torch.equal(keys, k1) and torch.equal(values, v1)
    keys, values = kv.update(3, k2, v2)
    assert torch.equal(keys, torch.cat([k1, k2], dim=2)) and torch.equal(values, torch.cat([v1, v2], dim=2))
    assert kv.k[:, :, 4:].abs().sum() == 0


def test_a_smaller_batch_uses_the_first_rows(gen):
    kv = cache()
    k = torch.randn(1, 2, 3, 4, generator=gen)
    keys, _ = kv.update(0, k, k)
    assert keys.shape == (1, 2, 3, 4) and kv.k[1].abs().sum() == 0


def test_the_cache_keeps_no_graph_but_gradients_reach_this_calls_keys(gen):
    kv = cache()
    earlier = torch.randn(1, 2, 2, 4, generator=gen)
    kv.update(0, earlier, earlier)
    k = torch.randn(1, 2, 3, 4, generator=gen, requires_grad=True)
    keys, values = kv.update(2, k, k * 2)
    assert kv.k.grad_fn is None and not kv.k.requires_grad
    (keys.sum() + values.sum()).backward()
    torch.testing.assert_close(k.grad, torch.full_like(k, 3.0))
    assert torch.equal(keys[:, :, :2], earlier)  # the cached prefix is a constant


def test_reset_forgets_everything(gen):
    kv = cache()
    kv.update(0, torch.ones(2, 2, 8, 4), torch.ones(2, 2, 8, 4))
    kv.reset()
    assert kv.k.abs().sum() == 0 and kv.v.abs().sum() == 0


def test_the_cache_knows_how_far_its_sequences_go(gen):
    """`length` and `batch`, which the model's check reads: a write sets them, a rewind shortens, a new batch at 0
    replaces, and a reset forgets."""
    kv = cache()
    one = torch.randn(1, 2, 3, 4, generator=gen)
    kv.update(0, one, one)
    assert (kv.length, kv.batch) == (3, 1)
    step = torch.randn(1, 2, 1, 4, generator=gen)
    kv.update(2, step, step)  # a rewind: position 2 again, and the cache now ends there
    assert kv.length == 3
    two = torch.randn(2, 2, 1, 4, generator=gen)
    kv.update(0, two, two)  # new sequences, two of them
    assert (kv.length, kv.batch) == (1, 2)
    kv.reset()
    assert (kv.length, kv.batch) == (0, 0)


@pytest.mark.slow
@pytest.mark.parametrize("layout", ["half", "interleaved"])
def test_a_compiled_decoding_step_gives_the_eager_tokens(layout):
    """generate(compile=True), gpt-fast's way: one compiled step, the position a tensor, the whole cache attended
    with the keys past the position masked out. Greedy and seeded sampling give the eager tokens, and the model
    goes on from the cache afterwards as it does after an eager run; a second call reuses the compiled step."""
    ours = ours_from(hf_llama("llama3"), layout, max_batch_size=2)
    prompt = tokens(2, 7)
    next_logits = {}
    for compiled in (False, True):
        made = ours.generate(prompt, 20, compile=compiled)
        with torch.no_grad():  # the step after the last: the cache holds positions 0 … 25
            next_logits[compiled] = ours(made[:, -1:], start_pos=7 + 19)
        if compiled:
            assert torch.equal(made, eager)
        eager = made
    torch.testing.assert_close(next_logits[True], next_logits[False], rtol=0, atol=1e-5)
    step = ours.compiled_step()
    assert ours.compiled_step() is step
    sampled = {compiled: ours.generate(prompt, 12, temperature=0.8, top_k=20, compile=compiled,
                                       generator=torch.Generator().manual_seed(3)) for compiled in (False, True)}
    assert torch.equal(sampled[True], sampled[False])


@pytest.mark.slow
@pytest.mark.parametrize("encoding", ["none", "sinusoidal", "learned"])
def test_a_compiled_step_adds_the_other_encodings_as_the_eager_one(encoding):
    model = tiny(encoding)
    prompt = torch.randint(0, VOCAB, (1, 5), generator=torch.Generator().manual_seed(0))
    assert torch.equal(model.generate(prompt, 10, compile=True), model.generate(prompt, 10))


@pytest.mark.parametrize(
    "change, words",
    [({"position_encoding": "alibi"}, "ALiBi"), ({"scaling": RopeScaling("dynamic", 2.0, original_max_len=8)}, "'dynamic'")],
)
def test_compile_is_refused_where_a_step_cannot_keep_its_shapes(change, words):
    """ALiBi's bias and a rule whose frequencies depend on the length change with every step: refused, not compiled
    into a wrong step."""
    model = Model(ModelConfig(**{**CONFIG, "max_seq_len": 32, **change}))
    with pytest.raises(ValueError, match=f"compile=True needs a step whose shapes never change.*{words}"):
        model.generate(torch.ones(1, 3, dtype=torch.int64), 4, compile=True)
