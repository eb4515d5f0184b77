"""The base of RoPE bounds the context length (Men et al. 2024), chapter "Why does RoPE work?".

If a key is a noisy copy of the query (q and the noise with independent
zero-mean coordinates of variance σ²), its expected RoPE score at distance Δ
exceeds that of an unrelated key by 2σ²·B_{Δ,θ}, with

    B_{Δ,θ} = Σ_{i=0}^{d/2−1} cos(Δ·θ_i)

(Men et al. write B_{m,θ}; the Python names below keep their m for the distance).
A model can prefer similar tokens over random ones at every distance up to L
only if B_{Δ,θ} ≥ 0 for Δ = 0 … L, and that needs a large enough base.

B is not monotone in the base: a base can keep B ≥ 0 up to L while a somewhat
larger one does not. So `smallest_base` does not bisect; it scans a log grid of
bases upwards, takes the first grid base that passes and rescans the gap below
it on a finer grid. The blocked sum it uses agrees with the direct sum to about
1e-11; the tests confirm every reported base with the direct sum.

A grid can only say that the bases it tried fail. `base_keeping_non_negative_in` decides a whole interval of bases
(those that round to a published value, say): it bounds how fast B_{Δ,θ} can change with the base
(`b_slope_bound`), so that one evaluation rules out a whole sub-interval.
"""

from __future__ import annotations

import math

import numpy as np

from ..._validate import checked_by, refuse, require_base, require_even_dim, require_positive_int
from ...frequencies import inv_freq


def b_m_theta_arguments(a) -> None:
    if np.ndim(a["inv_freq"]) != 1 or np.size(a["inv_freq"]) == 0:
        refuse("inv_freq", "be a non-empty vector of frequencies θ_i", f"shape {np.shape(a['inv_freq'])}")


@checked_by(b_m_theta_arguments)
def b_m_theta(positions, inv_freq) -> np.ndarray:
    """B_{Δ,θ} = Σ_i cos(Δ·θ_i) for every distance Δ in `positions`, shape
    positions.shape (the direct sum)."""
    positions = np.asarray(positions, dtype=float)  # a list too
    return np.cos(positions[..., None] * inv_freq).sum(axis=-1)


def b_m_theta_blocks(max_len: int, inv_freq) -> np.ndarray:
    """B_{Δ,θ} for Δ = 0 … max_len by blocks: with Δ = a + j,

    cos((a + j)θ) = cos(aθ)cos(jθ) − sin(aθ)sin(jθ),

    so one block of positions is two matrix products instead of (max_len + 1)·d/2 cosines.
    Agrees with `b_m_theta` to about 1e-13; shape (max_len + 1,).
    """
    max_len = require_positive_int(max_len, "max_len")
    theta = np.asarray(inv_freq, dtype=np.float64)
    block = math.isqrt(max_len + 1) + 1
    offsets = np.arange(block, dtype=np.float64)[:, None] * theta  # (block, d/2): j·θ_i
    starts = np.arange(0, max_len + 1, block, dtype=np.float64)[:, None] * theta  # (blocks, d/2): a·θ_i
    values = np.cos(offsets) @ np.cos(starts).T - np.sin(offsets) @ np.sin(starts).T  # (block, blocks)
    return values.T.reshape(-1)[: max_len + 1]


def first_negative(d: int, base: float, max_len: int) -> int:
    """The smallest Δ ≤ max_len with B_{Δ,θ} < 0, or max_len + 1 when B ≥ 0 all the way.

    Looks over growing horizons (1024, 4096, …) so that a base that fails early costs little.
    """
    d = require_even_dim(d, "d")
    theta = inv_freq(d, base)
    max_len = require_positive_int(max_len, "max_len")
    horizon = min(1024, max_len)
    while True:
        negative = np.flatnonzero(b_m_theta_blocks(horizon, theta) < 0)
        if negative.size:
            return int(negative[0])
        if horizon == max_len:
            return max_len + 1
        horizon = min(4 * horizon, max_len)


def keeps_non_negative(d: int, base: float, context_len: int, *, chunk: int = 65536) -> bool:
    """True when the direct sum B_{Δ,θ} ≥ 0 for every Δ = 0 … context_len (the slow, obvious check)."""
    theta = inv_freq(require_even_dim(d, "d"), base)
    context_len = require_positive_int(context_len, "context_len")
    for start in range(0, context_len + 1, chunk):
        if (b_m_theta(np.arange(start, min(start + chunk, context_len + 1)), theta) < 0).any():
            return False
    return True


def base_grid(low: float, high: float, points_per_decade: int) -> np.ndarray:
    """Bases spaced evenly in log10 from low to high, points_per_decade of them per factor of 10."""
    low, high = require_base(low, "low"), require_base(high, "high")
    if high <= low:
        raise ValueError(f"high must exceed low, got low={low} and high={high}")
    points_per_decade = require_positive_int(points_per_decade, "points_per_decade")
    count = int(math.ceil(math.log10(high / low) * points_per_decade)) + 1
    return np.geomspace(low, high, count)


def smallest_base(
    d: int,
    context_len: int,
    *,
    low: float = 10.0,
    high: float = 1e12,
    points_per_decade: int = 32,
    refine: int = 16,
) -> float:
    """The smallest base found for which B_{Δ,θ} ≥ 0 for every
    Δ = 0 … context_len.

    Scans `base_grid(low, high, points_per_decade)` upwards; the first
    passing base b_k and the failing one below it, b_{k−1}, bracket the
    answer; the bracket is rescanned with `refine` log-spaced points and
    the first that passes is returned. A passing window narrower than the
    grid spacing below b_{k−1} would be missed: this is the smallest
    passing base the search saw.
    """
    return base_lower_bounds(
        d,
        [context_len],
        low=low,
        high=high,
        points_per_decade=points_per_decade,
        refine=refine,
    )[0]


def base_lower_bounds(d: int, context_lens, *, low: float = 10.0, high: float = 1e12, points_per_decade: int = 32, refine: int = 16) -> np.ndarray:
    """`smallest_base` for several context lengths at once, sharing one scan of the grid; shape (len(context_lens),)."""
    d = require_even_dim(d, "d")
    lengths = [require_positive_int(length, "context_len") for length in context_lens]
    refine = require_positive_int(refine, "refine")
    longest = max(lengths)
    grid = base_grid(low, high, points_per_decade)
    reach = []  # first_negative of each grid base scanned so far
    answers = []
    for length in lengths:
        k = next((k for k, r in enumerate(reach) if r > length), None)
        while k is None and len(reach) < grid.size:
            reach.append(first_negative(d, grid[len(reach)], longest))
            k = len(reach) - 1 if reach[-1] > length else None
        if k is None:
            raise ValueError(f"no base up to high={high:g} keeps B_(Δ,θ) ≥ 0 up to context_len={length}")
        answers.append(_refine(d, length, grid[k - 1] if k else grid[0] / 10 ** (1 / points_per_decade), grid[k], refine))
    return np.array(answers)


def _refine(d: int, context_len: int, failing: float, passing: float, points: int) -> float:
    """The first base of a finer log grid over (failing, passing] that passes (passing itself does)."""
    candidates = np.geomspace(failing, passing, points + 1)[1:]
    return float(next(b for b in candidates if first_negative(d, b, context_len) > context_len))


def similarity_curve(inv_freq, attention_factor: float, distances) -> np.ndarray:
    """Expected score of a key that copies the query, relative to distance 0 of plain RoPE:
    attention_factor² · B_{Δ,θ'} / (d/2) (chapter "Longer contexts")."""
    return attention_factor**2 * b_m_theta(distances, inv_freq) / np.size(inv_freq)


def rounding_interval(value: float, digits: int = 2) -> tuple[float, float]:
    """The bases that round to `value` at `digits` significant digits: value ± half a unit of the last digit.

    Both ends are included, so the interval holds every base that rounds to value and, at most, the two ends.
    """
    value = require_base(value, "value")
    digits = require_positive_int(digits, "digits")
    half = 0.5 * 10.0 ** (math.floor(math.log10(value)) - digits + 1)
    return value - half, value + half


def b_slope_bound(d: int, low: float) -> float:
    """K(low): for every base b ≥ low and every Δ, |dB_{Δ,θ(b)}/db| ≤ Δ·K(low).

    θ_i(b) = b^(−2i/d) gives dθ_i/db = −(2i/d)·θ_i(b)/b, whose size falls as b grows; so
    |dB_{Δ,θ}/db| ≤ Δ · Σ_i (2i/d)·θ_i(low)/low for b ≥ low.
    """
    d, low = require_even_dim(d, "d"), require_base(low, "low")
    i = np.arange(d // 2, dtype=np.float64)
    return float(np.sum((2 * i / d) * inv_freq(d, low)) / low)


def base_keeping_non_negative_in(d: int, low: float, high: float, context_len: int, *, max_intervals: int = 100000) -> float | None:
    """A base in [low, high] that keeps B_{Δ,θ} ≥ 0 for every Δ = 0 … context_len, or None when there is none.

    A grid could only say that the bases it tried fail. This search proves it for the whole interval: it halves
    [low, high] breadth first, and an interval [a, b] with midpoint c is ruled out when, for some Δ ≤ context_len,

        B_{Δ,θ(c)} + Δ · K(a) · (b − a)/2 < 0,     K(a) = Σ_i (2i/d)·θ_i(a)/a,

    since Δ·K(a) bounds how fast B_{Δ,θ} can change with the base on [a, b]: then B < 0 at that Δ for every base
    in [a, b]. A midpoint that keeps B ≥ 0 (confirmed with the direct sum) is returned. An interval that is
    neither ruled out nor passing is halved again; raises RuntimeError after max_intervals intervals.
    """
    d = require_even_dim(d, "d")
    low, high = require_base(low, "low"), require_base(high, "high")
    if high <= low:
        raise ValueError(f"high must exceed low, got low={low} and high={high}")
    context_len = require_positive_int(context_len, "context_len")
    max_intervals = require_positive_int(max_intervals, "max_intervals")
    m = np.arange(context_len + 1, dtype=np.float64)
    tolerance = 1e-9  # the blocked sum agrees with the direct one to about 1e-11
    pending, seen = [(low, high)], 0
    while pending:
        halves = []
        for a, b in pending:
            seen += 1
            if seen > max_intervals:
                raise RuntimeError(f"undecided after max_intervals={max_intervals} intervals of [{low:g}, {high:g}]")
            c = 0.5 * (a + b)
            values = b_m_theta_blocks(context_len, inv_freq(d, c))
            if values.min() >= 0 and keeps_non_negative(d, c, context_len):
                return float(c)
            if np.any(values + m * b_slope_bound(d, a) * (b - a) / 2 + tolerance < 0):
                continue  # B < 0 somewhere up to context_len for every base in [a, b]
            halves += [(a, c), (c, b)]
        pending = halves
    return None
