"""One attention block run as `Model.forward` runs its blocks, for the tests of the block itself: the model's cos
and sin of the positions and its mask, handed to the block."""

import torch

from rope_lib import Model, ModelConfig
from rope_lib.kernels import FusedAttention
from rope_lib.teach.llama_implementation import layer_scores

CPU = torch.device("cpu")


class Block:
    """The attention of a one-layer model (dim 32, 4 heads unless told), called as the model calls it."""

    def __init__(self, dtype=torch.float64, *, dim=32, n_heads=4, fused=False, **options):
        """options: more ModelConfig fields (max_batch_size 2, max_seq_len 64 and the CPU unless told)."""
        torch.manual_seed(0)
        settings = dict(max_batch_size=2, max_seq_len=64, device="cpu", dtype=dtype) | options
        self.config = ModelConfig(vocab_size=4, dim=dim, n_layers=1, n_heads=n_heads, hidden_dim=8, **settings)
        self.model = Model(self.config)
        if fused:
            self.model.layers[0].attention = FusedAttention(self.config, CPU)
        self.attention = self.model.layers[0].attention

    def __call__(self, x, start_pos=0, *, use_cache=True):
        seq = x.shape[1]
        end = start_pos + seq
        rope = None if self.model.rope is None else self.model.rope(torch.arange(start_pos, end), seq_len=end)
        mask = self.model.mask(start_pos if use_cache else 0, seq, x.dtype)
        return self.attention(x, start_pos, rope, mask, use_cache)

    def scores(self, x, positions):
        return layer_scores(self.model, 0, x, positions)

    def reset_cache(self):
        self.model.reset_cache()

    def parameters(self):
        return self.attention.parameters()

    def zero_grad(self):
        self.attention.zero_grad()
