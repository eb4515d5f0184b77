"""The same computations on CUDA, compared with the CPU. Skipped when no GPU is visible."""

import pytest
import torch

from rope_lib import Model, ModelConfig, apply_rope, apply_rotary_emb, precompute_freqs_cis, rope_cos_sin
from rope_lib.rope import rotate_pairs
from rope_lib.kernels.fused import kernels_for, rotate_pairs_fused

pytestmark = pytest.mark.gpu
CUDA = torch.device("cuda")


@pytest.mark.parametrize("dtype, atol", [(torch.float64, 1e-12), (torch.float32, 1e-5), (torch.bfloat16, 1e-2)])
@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_rope_forms_on_cuda_match_the_cpu(dtype, atol, layout):
    x = torch.randn(2, 64, 4, 128, generator=torch.Generator().manual_seed(0)).to(dtype)
    positions = torch.arange(100_000, 100_064)
    cpu = apply_rope(x, positions, layout=layout)
    gpu = apply_rope(x.to(CUDA), positions.to(CUDA), layout=layout)
    assert gpu.device.type == "cuda" and gpu.dtype == dtype
    torch.testing.assert_close(gpu.cpu(), cpu, rtol=0, atol=atol)


def test_complex_form_on_cuda_matches_the_cpu():
    x = torch.randn(2, 32, 4, 64, generator=torch.Generator().manual_seed(1))
    table = precompute_freqs_cis(64, 4096)
    cpu = apply_rotary_emb(x, x, table[4000:4032])
    gpu = apply_rotary_emb(x.to(CUDA), x.to(CUDA), precompute_freqs_cis(64, 4096, device=CUDA)[4000:4032])
    for a, b in zip(gpu, cpu):
        torch.testing.assert_close(a.cpu(), b, rtol=0, atol=1e-5)


@pytest.mark.parametrize("dtype, atol", [(torch.float32, 1e-4), (torch.bfloat16, 5e-2)])
def test_decoding_through_the_kv_cache_on_cuda_matches_the_cpu(dtype, atol):
    torch.manual_seed(0)
    shape = dict(vocab_size=64, dim=256, n_layers=2, n_heads=8, n_kv_heads=2, hidden_dim=512, max_batch_size=2, max_seq_len=128, dtype=dtype)
    cpu = Model(ModelConfig(device="cpu", **shape))
    gpu = Model(ModelConfig(**shape))
    assert gpu.device.type == "cuda", "device=None must pick CUDA when it is there"
    gpu.load_state_dict(cpu.state_dict())
    x = torch.randint(0, 64, (2, 40), generator=torch.Generator().manual_seed(2))
    with torch.no_grad():
        for start, end in [(0, 30)] + [(t, t + 1) for t in range(30, 40)]:
            torch.testing.assert_close(gpu(x[:, start:end].to(CUDA), start).cpu(), cpu(x[:, start:end], start), rtol=0, atol=atol)


@pytest.mark.parametrize("dtype, atol", [(torch.float32, 1e-5), (torch.bfloat16, 2e-2)])
@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_every_fused_kernel_on_cuda_matches_the_cpu_rotation(dtype, atol, layout):
    """Each kernel rotate_pairs_fused can pick on CUDA (Triton through torch.compile, the complex product),
    into a buffer and in place, against the eager rotation on the CPU."""
    x = torch.randn(2, 64, 4, 128, generator=torch.Generator().manual_seed(3)).to(dtype)
    cos, sin = rope_cos_sin(torch.arange(5000, 5064), 128)
    want = rotate_pairs(x, cos, sin, layout=layout)
    x_gpu, cos_gpu, sin_gpu = x.to(CUDA), cos.to(CUDA), sin.to(CUDA)
    for kernel in kernels_for(x_gpu, x_gpu, layout):
        got = rotate_pairs_fused(x_gpu, cos_gpu, sin_gpu, layout=layout, kernel=kernel)
        torch.testing.assert_close(got.cpu(), want, rtol=0, atol=atol, msg=lambda m: f"kernel {kernel}: {m}")
        in_place = x_gpu.clone()
        rotate_pairs_fused(in_place, cos_gpu, sin_gpu, layout=layout, kernel=kernel, out=in_place)
        torch.testing.assert_close(in_place.cpu(), want, rtol=0, atol=atol, msg=lambda m: f"kernel {kernel}, in place: {m}")


def _tiny_llama(device):
    """A random Hugging Face Llama with grouped-query heads, built from a config (nothing is downloaded)."""
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=97, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64
    )
    return LlamaForCausalLM(config).to(device).eval(), config


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_the_whole_model_on_cuda_matches_hugging_face_and_the_cpu(layout):
    from rope_lib import from_hf_state_dict

    hf, config = _tiny_llama("cuda")
    ours = from_hf_state_dict(hf.state_dict(), config, layout=layout, device="cuda")
    on_cpu = from_hf_state_dict({k: v.cpu() for k, v in hf.state_dict().items()}, config, layout=layout, device="cpu")
    tokens = torch.randint(0, config.vocab_size, (2, 20), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        theirs = hf(tokens.cuda()).logits
    mine = ours(tokens.cuda(), use_cache=False)
    torch.testing.assert_close(mine, theirs, rtol=0, atol=1e-4)
    torch.testing.assert_close(mine.cpu(), on_cpu(tokens, use_cache=False), rtol=0, atol=1e-4)
    prompt = tokens[:1, :7].cuda()
    want = hf.generate(prompt, max_new_tokens=20, min_new_tokens=20, do_sample=False)[:, 7:]
    assert torch.equal(ours.generate(prompt, 20), want)


def test_whole_model_decoding_is_timed_on_cuda_with_the_same_tokens():
    from benchmarks import decode_speed

    record = decode_speed.compare("3M", torch.device("cuda"), rounds=1)
    assert record["device"] == "cuda" and record["identical_tokens"] and record["tokens_made"] == [128, 128]
