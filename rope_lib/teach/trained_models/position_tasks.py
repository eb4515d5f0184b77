"""Synthetic tasks that a model can only solve by knowing where its tokens are (chapter "RoPE in a trained model").

Each task makes batches in code from a seeded `torch.Generator`: token ids (B, T) and targets (B, T), where
targets[b, t] is the token the model should output after reading tokens[b, : t + 1], or IGNORE where nothing is
asked. Content tokens are 0 … n_symbols − 1, drawn uniformly; the few ids above them are markers.

* `CopyTask` (induction): [BOS] x_1 … x_n [SEP] x_1 … x_n. After SEP the model repeats the span it saw earlier;
  the token to output sits n positions back, a distance that grows with the length.
* `LookbackTask` (relative retrieval): [K_k] x_1 … x_(T−1), the first token saying which k of `ks` applies; at
  position t the model outputs x_(t−k), the token k positions back, a distance that does not grow with the length.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ..._validate import require_positive_int

IGNORE = -100
"""The target of a position that asks nothing: `torch.nn.functional.cross_entropy`'s default ignore_index."""

N_SYMBOLS = 16
"""Content tokens of every task by default: chance accuracy is 1/16."""


def require_predictions(logits: torch.Tensor, targets: torch.Tensor) -> None:
    """Logits (B, T, V) of a model and the task's targets (B, T) for them, or a clear error."""
    if logits.dim() != 3 or targets.shape != logits.shape[:2]:
        raise ValueError(f"logits must be (B, T, V) and targets (B, T), got {tuple(logits.shape)} and {tuple(targets.shape)}")


def _require_generator(generator) -> torch.Generator:
    if not isinstance(generator, torch.Generator) or generator.device.type != "cpu":
        raise TypeError(f"generator must be a CPU torch.Generator (seeded, so the batch can be made again), got {generator!r}")
    return generator


def _require_batch_size(batch_size) -> int:
    return require_positive_int(batch_size, "batch_size")


@dataclass(frozen=True)
class CopyTask:
    """[BOS] x_1 … x_n [SEP] x_1 … x_n, T = 2n + 2 tokens: repeat the span after SEP (an induction task).

    The targets sit at positions n + 1 … 2n (SEP and the copy but its last token): x_(j+1) at position n + 1 + j,
    which the model finds n positions back, at position j + 1.
    """

    n_symbols: int = N_SYMBOLS
    name: str = "copy"

    def __post_init__(self):
        if require_positive_int(self.n_symbols, "n_symbols") < 2:
            raise ValueError(f"n_symbols must be at least 2 (a span to remember), got {self.n_symbols}")

    @property
    def bos(self) -> int:
        return self.n_symbols

    @property
    def sep(self) -> int:
        return self.n_symbols + 1

    @property
    def vocab_size(self) -> int:
        return self.n_symbols + 2

    def span(self, seq_len: int) -> int:
        """n, the length of the span a sequence of seq_len = 2n + 2 tokens copies."""
        seq_len = require_positive_int(seq_len, "seq_len")
        if seq_len < 4 or seq_len % 2:
            raise ValueError(f"seq_len must be even and at least 4 for the copy task (T = 2n + 2), got {seq_len}")
        return (seq_len - 2) // 2

    def offset(self, seq_len: int) -> int:
        """How far back the token to output sits: n."""
        return self.span(seq_len)

    def first_target(self, seq_len: int) -> int:
        """The first position with a target: SEP, at n + 1."""
        return self.span(seq_len) + 1

    def probe_batches(self, seq_len: int) -> dict[int, dict]:
        """The offset a head must attend by to solve the task → the `batch` options of a batch that asks for it: n."""
        return {self.offset(seq_len): {}}

    def batch(self, seq_len: int, batch_size: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
        """tokens, targets: (B, T) int64 each, on the CPU."""
        n = self.span(seq_len)
        batch_size = _require_batch_size(batch_size)
        x = torch.randint(0, self.n_symbols, (batch_size, n), generator=_require_generator(generator))  # (B, n)
        column = lambda token: torch.full((batch_size, 1), token)  # noqa: E731
        tokens = torch.cat([column(self.bos), x, column(self.sep), x], dim=1)  # (B, T)
        targets = torch.full_like(tokens, IGNORE)
        targets[:, n + 1 : 2 * n + 1] = x  # after SEP and after each copied token: the next token of the span
        return tokens, targets


@dataclass(frozen=True)
class LookbackTask:
    """[K_k] x_1 … x_(T−1): the first token names k (one of ks, drawn per sequence); at each position t with
    t − k ≥ 1 the target is x_(t−k), the token k positions back (relative retrieval)."""

    ks: tuple[int, ...] = (1, 2, 3, 4)
    n_symbols: int = N_SYMBOLS
    name: str = "lookback"

    def __post_init__(self):
        if not isinstance(self.ks, tuple) or not self.ks:
            raise TypeError(f"ks must be a non-empty tuple of distances, got {self.ks!r}")
        for k in self.ks:
            require_positive_int(k, "ks")
        if len(set(self.ks)) != len(self.ks):
            raise ValueError(f"ks must not repeat a distance, got {self.ks}")
        if require_positive_int(self.n_symbols, "n_symbols") < 2:
            raise ValueError(f"n_symbols must be at least 2, got {self.n_symbols}")

    @property
    def vocab_size(self) -> int:
        return self.n_symbols + len(self.ks)

    def marker(self, k: int) -> int:
        """The token id that says "output the token k positions back"."""
        if k not in self.ks:
            raise ValueError(f"k must be one of ks={self.ks}, got {k!r}")
        return self.n_symbols + self.ks.index(k)

    def first_target(self, seq_len: int) -> int:
        """The first position with a target for the largest k: max(ks) + 1."""
        self._check_len(seq_len)
        return max(self.ks) + 1

    def _check_len(self, seq_len) -> int:
        seq_len = require_positive_int(seq_len, "seq_len")
        if seq_len < max(self.ks) + 2:
            raise ValueError(f"seq_len must be at least max(ks) + 2 = {max(self.ks) + 2}, so that every k asks something, got {seq_len}")
        return seq_len

    def probe_batches(self, seq_len: int) -> dict[int, dict]:
        """The offset a head must attend by to solve the task → the `batch` options of a batch that asks for it: each k
        of ks, with every sequence of the batch using that k."""
        self._check_len(seq_len)
        return {k: {"k": k} for k in self.ks}

    def batch(
        self,
        seq_len: int,
        batch_size: int,
        generator: torch.Generator,
        *,
        k: int | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """tokens, targets: (B, T) int64 each, on the CPU; k=None draws k
        per sequence, else every sequence uses k."""
        seq_len = self._check_len(seq_len)
        batch_size = _require_batch_size(batch_size)
        generator = _require_generator(generator)
        if k is None:
            choice = torch.randint(
                0, len(self.ks), (batch_size,), generator=generator
            )  # (B,)
        else:
            choice = torch.full(
                (batch_size,), self.marker(k) - self.n_symbols
            )
        distance = torch.tensor(self.ks)[choice]  # (B,)
        content = torch.randint(
            0,
            self.n_symbols,
            (batch_size, seq_len - 1),
            generator=generator,
        )  # (B, T − 1)
        tokens = torch.cat(
            [(self.n_symbols + choice)[:, None], content], dim=1
        )  # (B, T)
        t = torch.arange(seq_len)  # (T,)
        # (B, T): where the answer sits
        source = t[None, :] - distance[:, None]
        targets = torch.where(
            source >= 1, tokens.gather(1, source.clamp(min=0)), IGNORE
        )
        return tokens, targets


TASKS = {"copy": CopyTask, "lookback": LookbackTask}
"""The tasks by name, each with its default settings."""
