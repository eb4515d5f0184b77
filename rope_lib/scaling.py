"""Context extension: the rescaled rotary frequencies θ'_i (chapter "Longer contexts").

A model trained on contexts of L positions has only seen the angles m·θ_i for
m < L. Each rule below changes the frequencies θ_i = base^(−2i/d) so that a
longer context L' = s·L (s, the `factor`) reuses angles the model has seen, at
least for the slow pairs whose wavelength is longer than L. Every function is a
pure function of (d, base, factor, …) returning a float64 vector of d/2
frequencies, the `inv_freq=` that `apply_rope`, `rope_cos_sin` and `Attention`
accept; d is the rotary dimension (all of the head, or its rotated part).

`SCALING_RULES` maps each rule's name to the function `RopeScaling.frequencies`
calls, as Hugging Face's `ROPE_INIT_FUNCTIONS` maps its `rope_type`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from types import MappingProxyType
from typing import Callable, Mapping

import numpy as np

from ._validate import (
    arguments,
    checked_by,
    inv_freq_or_base_arguments,
    optional,
    refuse,
    require_base,
    require_bool,
    require_even_dim,
    require_factor,
    require_ntk_dim,
    require_positive_int,
    require_positive_real,
    require_real,
    require_vector,
)
from . import frequencies
from .frequencies import DEFAULT_BASE, inv_freq

LLAMA3_BASE = 500000.0
"""The RoPE base of Llama 3 and 3.1."""


def increasing(low: str, high: str):
    """The check that 0 < a[low] < a[high], both finite: YaRN's beta_slow < beta_fast, Llama 3.1's factors."""

    def check(a) -> None:
        require_real(a[low], low), require_real(a[high], high)
        if not 0 < a[low] < a[high]:
            refuse(f"{low} and {high}", f"satisfy 0 < {low} < {high}", f"{low}={a[low]} and {high}={a[high]}")

    return check


def require_fraction(value, name: str, low_open: bool = False) -> None:
    """A share in [0, 1] (in (0, 1] when low_open): p-RoPE's proportion, a partial rotary fraction."""
    require_real(value, name)
    if not (0 < value <= 1 if low_open else 0 <= value <= 1):
        refuse(name, f"lie in {'(' if low_open else '['}0, 1]", value)


def require_rescale_factors(values, n_pairs: int, name: str = "rescale_factors") -> None:
    """LongRoPE's λ_i: n_pairs finite numbers above 0, one per pair."""
    require_vector(values, n_pairs, name, shape="hold one factor per pair, shape (d/2,)", items="finite factors above 0", positive=True)


def require_log_length(original_max_len, name: str = "original_max_len") -> None:
    """A trained length L whose logarithm can divide (LongRoPE's attention factor √(1 + ln s / ln L))."""
    if require_positive_int(original_max_len, name) < 2:
        refuse(name, "be at least 2 (ln L is the denominator)", original_max_len)


def partial_rotary_dim(head_dim: int, partial_rotary_factor: float, name: str = "partial_rotary_factor") -> int:
    """int(head_dim · fraction): the rotated part of a head (GPT-NeoX, Phi); it must be even. `name` is the
    fraction's name in the errors (GPT-NeoX calls it rotary_pct)."""
    require_even_dim(head_dim, "head_dim")
    require_fraction(partial_rotary_factor, name, low_open=True)
    rotary = int(head_dim * partial_rotary_factor)
    require_even_dim(rotary, f"int(head_dim · {name}) = int({head_dim} · {partial_rotary_factor})")
    return rotary


def config_rotary_dim(head_dim: int, *, rotary_pct: float | None = None, partial_rotary_factor: float | None = None) -> int:
    """The rotated part of a head from a config: GPT-NeoX's `rotary_pct` or Phi's `partial_rotary_factor` (the same
    fraction under two names; both are refused), through `partial_rotary_dim`; neither set rotates the whole head."""
    if rotary_pct is not None and partial_rotary_factor is not None:
        raise ValueError(f"set rotary_pct (GPT-NeoX) or partial_rotary_factor (Phi), not both: got {rotary_pct} and {partial_rotary_factor}")
    if rotary_pct is not None:
        return partial_rotary_dim(head_dim, rotary_pct, "rotary_pct")
    if partial_rotary_factor is not None:
        return partial_rotary_dim(head_dim, partial_rotary_factor)
    require_even_dim(head_dim, "head_dim")
    return head_dim


@checked_by(arguments(d=require_even_dim, base=require_base, factor=require_factor))
def position_interpolation_inv_freq(
    d: int, base: float = DEFAULT_BASE, factor: float = 2.0
) -> np.ndarray:
    """θ'_i = θ_i / s: position interpolation (Chen et al. 2023) squeezes
    positions m ↦ m·L/L'.

    Every angle the long context needs, m·θ_i/s with m < s·L, is one the
    model saw for some m < L; the price is that neighbouring tokens move
    s times closer.
    """
    return inv_freq(d, base) / factor


@checked_by(arguments(d=(require_even_dim, require_ntk_dim), base=require_base, factor=require_factor))
def ntk_base(
    d: int, base: float = DEFAULT_BASE, factor: float = 2.0
) -> float:
    """base' = base · s^(d/(d−2)): the NTK-aware base (bloc97, 2023).

    With this base the slowest pair i = d/2 − 1 turns exactly s times
    slower and the fastest, i = 0, is untouched: high frequencies
    extrapolate, low ones interpolate.
    """
    return base * factor ** (d / (d - 2))


def ntk_inv_freq(d: int, base: float = DEFAULT_BASE, factor: float = 2.0) -> np.ndarray:
    """θ'_i = base'^(−2i/d) with the NTK-aware base' of `ntk_base`."""
    return inv_freq(d, ntk_base(d, base, factor))


@checked_by(arguments(factor=require_factor, seq_len=require_positive_int, original_max_len=require_positive_int))
def dynamic_ntk_factor(
    factor: float, seq_len: int, original_max_len: int
) -> float:
    """The NTK factor dynamic NTK uses at the current length:
    s·max(T, L)/L − (s − 1).

    It is 1 while the sequence fits in the original context L (frequencies
    unchanged) and grows with the length T beyond it (emozilla, 2023;
    Hugging Face's "dynamic").
    """
    if seq_len <= original_max_len:
        return 1.0  # exactly: the formula would give 1 up to rounding
    return factor * seq_len / original_max_len - (factor - 1)


def dynamic_ntk_inv_freq(d: int, base: float = DEFAULT_BASE, factor: float = 2.0, *, seq_len: int, original_max_len: int) -> np.ndarray:
    """NTK-aware frequencies for the current length T: recomputed as the sequence grows."""
    return ntk_inv_freq(d, base, dynamic_ntk_factor(factor, seq_len, original_max_len))


def yarn_correction_pair(n_rotations: float, d: int, base: float, original_max_len: int) -> float:
    """The (fractional) pair index i whose angle turns n_rotations times over L positions:
    L·θ_i / 2π = n  ⇔  i = d·ln(L / (2π·n)) / (2·ln base)."""
    return d * math.log(original_max_len / (2 * math.pi * n_rotations)) / (2 * math.log(base))


_YARN_RAMP_CHECKS = (
    arguments(d=require_even_dim, base=require_base, original_max_len=require_positive_int, truncate=require_bool),
    increasing("beta_slow", "beta_fast"),
)


@checked_by(*_YARN_RAMP_CHECKS)
def yarn_ramp(
    d: int,
    base: float = DEFAULT_BASE,
    *,
    original_max_len: int,
    beta_fast: float = 32.0,
    beta_slow: float = 1.0,
    truncate: bool = True,
) -> np.ndarray:
    """γ_i: the share of pair i that keeps its own frequency in YaRN
    (Peng et al. 2023), shape (d/2,).

    Pairs that turn more than β = beta_fast times over the original
    context keep θ_i (γ = 1); pairs that turn fewer than α = beta_slow
    times are interpolated (γ = 0). Between them γ falls linearly in the
    pair index, as in the authors' code and Hugging Face's (the paper
    writes the same ramp in r = L/λ); with truncate=True the two ends are
    rounded outwards to whole pairs.
    """
    # γ starts falling here
    start = yarn_correction_pair(beta_fast, d, base, original_max_len)
    # and reaches 0 here
    stop = yarn_correction_pair(beta_slow, d, base, original_max_len)
    if truncate:
        start, stop = math.floor(start), math.ceil(stop)
    start, stop = max(start, 0), min(stop, d - 1)
    if start == stop:
        stop += 0.001  # a one-pair ramp: avoid dividing by zero
    pair = np.arange(d // 2, dtype=np.float64)
    fraction = np.clip((pair - start) / (stop - start), 0.0, 1.0)
    return 1.0 - fraction


@checked_by(*_YARN_RAMP_CHECKS, arguments(factor=require_factor))
def yarn_inv_freq(
    d: int,
    base: float = DEFAULT_BASE,
    factor: float = 2.0,
    *,
    original_max_len: int,
    beta_fast: float = 32.0,
    beta_slow: float = 1.0,
    truncate: bool = True,
) -> np.ndarray:
    """θ'_i = (1 − γ_i)·θ_i/s + γ_i·θ_i: YaRN's "NTK-by-parts" frequencies (Peng et al. 2023)."""
    gamma = yarn_ramp(d, base, original_max_len=original_max_len, beta_fast=beta_fast, beta_slow=beta_slow, truncate=truncate)
    theta = inv_freq(d, base)
    return (1 - gamma) * theta / factor + gamma * theta


@checked_by(arguments(factor=require_factor, mscale=require_positive_real))
def yarn_attention_factor(factor: float, mscale: float = 1.0) -> float:
    """√(1/t) = 0.1·mscale·ln s + 1 (Peng et al. 2023, where mscale = 1):
    cos and sin are multiplied by it, so every logit by its square,
    sharpening attention that the longer context would flatten.

    DeepSeek-V2 (DeepSeek-AI 2024) makes the coefficient of ln s a
    setting, mscale (its `yarn_get_mscale`); at s = 1 the factor is 1
    whatever mscale is.
    """
    return 0.1 * mscale * math.log(factor) + 1.0


@checked_by(arguments(factor=require_factor, mscale=require_positive_real, mscale_all_dim=require_positive_real))
def deepseek_yarn_attention_factor(factor: float, mscale: float, mscale_all_dim: float) -> float:
    """(0.1·mscale·ln s + 1) / (0.1·mscale_all_dim·ln s + 1): the cos/sin factor of a YaRN config that sets both
    mscale and mscale_all_dim (DeepSeek-V2, DeepSeek-AI 2024; Hugging Face's `_compute_yarn_parameters`).

    With mscale = mscale_all_dim, as in DeepSeek-V2 and V3, it is exactly 1: those models put the
    temperature into the softmax scale instead (multiplied by yarn_attention_factor(s, mscale_all_dim)²,
    outside RoPE, which `rope_lib.llama.Attention` does not do).
    """
    return yarn_attention_factor(factor, mscale) / yarn_attention_factor(factor, mscale_all_dim)


@checked_by(arguments(original_max_len=require_positive_int), increasing("low_freq_factor", "high_freq_factor"))
def llama3_wavelength_bounds(original_max_len: int, low_freq_factor: float, high_freq_factor: float) -> tuple[float, float]:
    """(L/high_freq_factor, L/low_freq_factor): below the first wavelength Llama 3.1's rule keeps a frequency,
    above the second it divides it by the factor (2048 and 8192 for Llama 3.1; Dubey et al. 2024, Meta's `apply_scaling`)."""
    return original_max_len / high_freq_factor, original_max_len / low_freq_factor


def llama3_scale_inv_freq_arguments(a) -> None:
    theta = a["inv_freq"]
    require_vector(theta, np.size(theta), "inv_freq", shape="have shape (d/2,)", items="positive finite frequencies", positive=True)
    arguments(factor=require_factor, original_max_len=require_positive_int)(a)
    increasing("low_freq_factor", "high_freq_factor")(a)


@checked_by(llama3_scale_inv_freq_arguments)
def llama3_scale_inv_freq(
    inv_freq,
    factor: float = 8.0,
    *,
    low_freq_factor: float = 1.0,
    high_freq_factor: float = 4.0,
    original_max_len: int = 8192,
) -> np.ndarray:
    """Meta's Llama 3.1 rule on any frequencies (the `apply_scaling` of
    llama-models; Dubey et al. 2024).

    Wavelengths shorter than L/high_freq_factor (2048) are kept, longer
    than L/low_freq_factor (8192) divided by the factor; between them the
    frequency blends the two with weight (L/λ − low)/(high − low),
    continuous at both ends.
    """
    theta = np.asarray(inv_freq, dtype=np.float64)  # a list too
    low, high = low_freq_factor, high_freq_factor
    shortest_blended, longest_blended = llama3_wavelength_bounds(
        original_max_len, low, high
    )
    wavelength = 2 * np.pi / theta
    smooth = (original_max_len / wavelength - low) / (high - low)
    blended = (1 - smooth) * theta / factor + smooth * theta
    kept = wavelength < shortest_blended
    divided = wavelength > longest_blended
    return np.where(kept, theta, np.where(divided, theta / factor, blended))


def llama3_inv_freq(
    d: int,
    base: float = LLAMA3_BASE,
    factor: float = 8.0,
    *,
    low_freq_factor: float = 1.0,
    high_freq_factor: float = 4.0,
    original_max_len: int = 8192,
) -> np.ndarray:
    """The Llama 3.1 frequencies: `llama3_scale_inv_freq` applied to base^(−2i/d)."""
    return llama3_scale_inv_freq(
        inv_freq(d, base), factor, low_freq_factor=low_freq_factor, high_freq_factor=high_freq_factor, original_max_len=original_max_len
    )


def longrope_rescale_factors(values, n_pairs: int, name: str = "rescale_factors") -> np.ndarray:
    """λ_i: one rescale factor per pair, n_pairs finite numbers above 0 (a list, tuple or array), as float64."""
    require_rescale_factors(values, require_positive_int(n_pairs, "n_pairs"), name)
    return np.asarray(values, dtype=np.float64)


def longrope_inv_freq_arguments(a) -> None:
    arguments(d=require_even_dim, base=require_base)(a)
    require_rescale_factors(a["rescale_factors"], a["d"] // 2)


@checked_by(longrope_inv_freq_arguments)
def longrope_inv_freq(
    d: int, base: float = DEFAULT_BASE, *, rescale_factors
) -> np.ndarray:
    """θ'_i = θ_i / λ_i: LongRoPE's per-pair rescaling (Ding et al. 2024),
    one searched factor λ_i per pair."""
    return inv_freq(d, base) / rescale_factors


def longrope_uses_long_factors(seq_len: int | None, original_max_len: int) -> bool:
    """True when the current length T exceeds the trained context L: LongRoPE then takes its long factor set, else
    (T ≤ L, or no length given) the short one, as Hugging Face's `longrope` does (Phi-3)."""
    require_positive_int(original_max_len, "original_max_len")
    if seq_len is not None:
        require_positive_int(seq_len, "seq_len")
    return seq_len is not None and seq_len > original_max_len


@checked_by(arguments(factor=require_factor, original_max_len=require_log_length))
def longrope_attention_factor(
    factor: float, original_max_len: int
) -> float:
    """√(1 + ln s / ln L): the cos/sin multiplier Hugging Face's `longrope`
    uses when the config sets none (Phi-3); 1 at s = 1. YaRN's
    0.1·ln s + 1 plays the same part."""
    return math.sqrt(1 + math.log(factor) / math.log(original_max_len))


def proportional_kept_pairs(head_dim: int, proportion: float) -> int:
    """⌊p·d/2⌋: how many of the fastest pairs p-RoPE keeps rotating (Barbero et al. 2024); p = 0 is NoPE, p = 1 RoPE."""
    require_even_dim(head_dim, "head_dim")
    require_fraction(proportion, "proportion")
    return math.floor(proportion * head_dim / 2)


@checked_by(arguments(head_dim=require_even_dim, base=require_base, factor=require_factor, proportion=require_fraction))
def proportional_inv_freq(
    head_dim: int,
    base: float = DEFAULT_BASE,
    proportion: float = 0.25,
    factor: float = 1.0,
) -> np.ndarray:
    """p-RoPE (Barbero et al. 2024; Hugging Face's `proportional`): the
    first ⌊p·d/2⌋ frequencies base^(−2i/d) of the whole head, the slow rest
    set to 0 (those pairs never turn), all divided by s, shape (d/2,).

    Unlike partial rotary, the kept pairs keep the frequencies of full
    RoPE: the exponent is over d, not over the rotated part, so the slowest
    pairs are the ones dropped.
    """
    kept = proportional_kept_pairs(head_dim, proportion)
    theta = inv_freq(head_dim, base)
    theta[kept:] = 0.0
    return theta / factor


def _position_interpolation_rule(rule: RopeScaling, d: int, base: float, seq_len: int | None) -> np.ndarray:
    """"linear": `position_interpolation_inv_freq`, whatever the length."""
    return position_interpolation_inv_freq(d, base, rule.factor)


def _ntk_rule(rule: RopeScaling, d: int, base: float, seq_len: int | None) -> np.ndarray:
    """"ntk": `ntk_inv_freq`, the static NTK-aware rule, whatever the length."""
    return ntk_inv_freq(d, base, rule.factor)


def _dynamic_ntk_rule(rule: RopeScaling, d: int, base: float, seq_len: int | None) -> np.ndarray:
    """"dynamic": `dynamic_ntk_inv_freq` at the current length seq_len (the trained length when None)."""
    length = rule.original_max_len if seq_len is None else seq_len
    return dynamic_ntk_inv_freq(d, base, rule.factor, seq_len=length, original_max_len=rule.original_max_len)


def _yarn_rule(rule: RopeScaling, d: int, base: float, seq_len: int | None) -> np.ndarray:
    """"yarn": `yarn_inv_freq` with the rule's beta_fast, beta_slow and truncate, whatever the length."""
    return yarn_inv_freq(
        d, base, rule.factor, original_max_len=rule.original_max_len, beta_fast=rule.beta_fast, beta_slow=rule.beta_slow, truncate=rule.truncate
    )


def _llama3_rule(rule: RopeScaling, d: int, base: float, seq_len: int | None) -> np.ndarray:
    """"llama3": `llama3_inv_freq` with the rule's low_freq_factor and high_freq_factor, whatever the length."""
    return llama3_inv_freq(
        d, base, rule.factor, low_freq_factor=rule.low_freq_factor, high_freq_factor=rule.high_freq_factor, original_max_len=rule.original_max_len
    )


def _longrope_rule(rule: RopeScaling, d: int, base: float, seq_len: int | None) -> np.ndarray:
    """"longrope": `longrope_inv_freq` with the long factor set past the trained length, the short one otherwise."""
    long = longrope_uses_long_factors(seq_len, rule.original_max_len)
    factors, name = (rule.long_factor, "long_factor") if long else (rule.short_factor, "short_factor")
    require_even_dim(d, "d")
    return inv_freq(d, base) / longrope_rescale_factors(factors, d // 2, name)


def _proportional_rule(rule: RopeScaling, d: int, base: float, seq_len: int | None) -> np.ndarray:
    """"proportional": `proportional_inv_freq` over the whole head d with the rule's proportion, whatever the length."""
    return proportional_inv_freq(d, base, 1.0 if rule.proportion is None else rule.proportion, rule.factor)


ScalingRule = Callable[["RopeScaling", int, float, "int | None"], np.ndarray]
"""(rule, d, base, seq_len) → θ'_i, shape (d/2,): how one entry of `SCALING_RULES` computes its frequencies."""

SCALING_RULES: Mapping[str, ScalingRule] = MappingProxyType(
    {
        "linear": _position_interpolation_rule,
        "ntk": _ntk_rule,
        "dynamic": _dynamic_ntk_rule,
        "yarn": _yarn_rule,
        "llama3": _llama3_rule,
        "longrope": _longrope_rule,
        "proportional": _proportional_rule,
    }
)
"""Each context-extension rule by name → the function `RopeScaling.frequencies` calls, like Hugging Face's
`ROPE_INIT_FUNCTIONS` keyed by `rope_type` ("ntk", the static NTK-aware rule, has no Hugging Face type).
Read-only, so that `METHODS`, the figures and the widgets, all read from it, list the same rules."""

METHODS = tuple(SCALING_RULES)
"""The names of the rules, in the table's order."""

FACTOR_RULES = tuple(method for method in SCALING_RULES if method not in ("longrope", "proportional"))
"""The rules a factor s and the trained length L define on their own, the ones chapter "Longer contexts" compares
(`scaled_frequencies`); "longrope" needs its searched factor sets and "proportional" its proportion."""


@dataclass(frozen=True)
class RopeScaling:
    """One context-extension rule and its settings, for `Attention(..., scaling=...)`; every field is checked here.

    method: a name of `SCALING_RULES`. factor: s = L'/L, at least 1. original_max_len: the trained
    context L, needed by "dynamic", "yarn" and "llama3". beta_fast, beta_slow (0 < beta_slow < beta_fast)
    and truncate (True or False): YaRN's ramp. low_freq_factor, high_freq_factor (0 < low < high):
    the Llama 3.1 rule. Only for "yarn", None when not set: mscale and mscale_all_dim (both above 0),
    which together give `deepseek_yarn_attention_factor` (one without the other is refused: Hugging
    Face ignores it, DeepSeek's code does not). Only for "yarn" and "longrope": attention_factor_override, a cos/sin
    factor that wins over the computed one (Hugging Face's `attention_factor` key; the factor used is the
    `attention_factor` property). Only for "longrope", and needed there: short_factor and long_factor, one rescale
    factor λ_i per pair each, as many in both (tuples, stored as given); the long set serves lengths past L.
    Only for "proportional": proportion, the share p of pairs that turn (Hugging Face's partial_rotary_factor
    for that type; 1 when not set).
    """

    method: str
    factor: float
    original_max_len: int | None = None
    beta_fast: float = 32.0
    beta_slow: float = 1.0
    truncate: bool = True
    low_freq_factor: float = 1.0
    high_freq_factor: float = 4.0
    mscale: float | None = None
    mscale_all_dim: float | None = None
    attention_factor_override: float | None = None
    short_factor: tuple[float, ...] | None = None
    long_factor: tuple[float, ...] | None = None
    proportion: float | None = None

    def __post_init__(self):
        """Every field is checked here, whatever the method; then what the method needs and reads (`METHOD_FIELDS`)."""
        if not isinstance(self.method, str) or self.method not in SCALING_RULES:
            refuse("method", f"be one of SCALING_RULES {tuple(SCALING_RULES)}", repr(self.method))
        fields = vars(self)
        arguments(factor=require_factor, original_max_len=optional(require_positive_int), truncate=require_bool,
                  short_factor=optional(require_factor_set), long_factor=optional(require_factor_set),
                  proportion=optional(require_fraction))(fields)
        increasing("beta_slow", "beta_fast")(fields), increasing("low_freq_factor", "high_freq_factor")(fields)
        for name in ("mscale", "mscale_all_dim", "attention_factor_override"):
            require_positive_real(fields[name], name, or_none=True)
        needs, reads = METHOD_FIELDS[self.method]
        for name in needs:
            if fields[name] is None:
                raise ValueError(f"{name}{' (the trained context length)' * (name == 'original_max_len')} is needed by method {self.method!r}")
        for name in RULE_ONLY_FIELDS:
            if fields[name] is not None and name not in needs + reads:
                users = [method for method, (need, read) in METHOD_FIELDS.items() if name in need + read]
                raise ValueError(f"{name} is used only by method{'s' * (len(users) > 1)} {' and '.join(map(repr, users))}, got method {self.method!r}")
        if self.method == "yarn" and (self.mscale is None) != (self.mscale_all_dim is None) and self.attention_factor_override is None:
            raise ValueError(
                "mscale and mscale_all_dim are used together (their ratio is the attention factor), got only "
                f"{'mscale' if self.mscale is not None else 'mscale_all_dim'}: Hugging Face ignores a lone one and "
                "DeepSeek's code does not, so set both, or neither, or attention_factor_override"
            )
        if self.method == "longrope" and self.attention_factor_override is None:
            require_log_length(self.original_max_len)  # its attention factor divides by ln L
        if self.method == "longrope" and len(self.short_factor) != len(self.long_factor):
            raise ValueError(
                "short_factor and long_factor must hold one factor per pair each, the same number, got "
                f"{len(self.short_factor)} and {len(self.long_factor)}"
            )

    @property
    def is_dynamic(self) -> bool:
        """True when the frequencies depend on the current length, and so must be recomputed past the trained length
        L: "dynamic" rescales them for the length, "longrope" takes its long factor set (Hugging Face does both)."""
        return self.method in ("dynamic", "longrope")

    @property
    def attention_factor(self) -> float:
        """The multiplier of cos and sin; 1 for every rule but "yarn" and "longrope". For both, attention_factor_override
        when set. Else, for "yarn": `deepseek_yarn_attention_factor` when both mscale and mscale_all_dim are set;
        else the paper's `yarn_attention_factor`, 0.1·ln s + 1 (Hugging Face's order of precedence). For "longrope":
        `longrope_attention_factor`, √(1 + ln s / ln L), for both factor sets."""
        if self.method not in ("yarn", "longrope"):
            return 1.0
        if self.attention_factor_override is not None:
            return float(self.attention_factor_override)
        if self.method == "longrope":
            return longrope_attention_factor(self.factor, self.original_max_len)
        if self.mscale is not None and self.mscale_all_dim is not None:
            return deepseek_yarn_attention_factor(self.factor, self.mscale, self.mscale_all_dim)
        return yarn_attention_factor(self.factor)

    def frequencies(self, d: int, base: float = DEFAULT_BASE, seq_len: int | None = None) -> np.ndarray:
        """θ'_i for a rotary dimension d, from the method's entry of `SCALING_RULES`; seq_len is the current
        length, which only "dynamic" uses."""
        if seq_len is not None:
            require_positive_int(seq_len, "seq_len")
        return SCALING_RULES[self.method](self, d, base, seq_len)


METHOD_FIELDS: Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]] = MappingProxyType(
    {
        "linear": ((), ()),
        "ntk": ((), ()),
        "dynamic": (("original_max_len",), ()),
        "yarn": (("original_max_len",), ("mscale", "mscale_all_dim", "attention_factor_override")),
        "llama3": (("original_max_len",), ()),
        "longrope": (("original_max_len", "short_factor", "long_factor"), ("attention_factor_override",)),
        "proportional": ((), ("proportion",)),
    }
)
"""Each method → (the fields it needs, the optional ones it reads): the rule a `RopeScaling` of that method is held
to when it is made, one per method, as Hugging Face's `modeling_rope_utils` keeps one validation per rope_type."""

RULE_ONLY_FIELDS = ("mscale", "mscale_all_dim", "attention_factor_override", "short_factor", "long_factor", "proportion")
"""The fields only some methods use: None for the others."""


def require_factor_set(value, name: str) -> None:
    """LongRoPE's short_factor or long_factor: a tuple of rescale factors λ_i, one per pair."""
    if not isinstance(value, tuple):
        refuse(name, "be a tuple of rescale factors (one per pair)", type(value).__name__, TypeError)
    require_rescale_factors(value, max(len(value), 1), name)


def scaled_frequencies(method: str, factor: float, d: int, base: float, original_max_len: int) -> tuple[np.ndarray, float]:
    """θ'_i and the attention factor of one rule of `FACTOR_RULES` at the length s·L (dynamic NTK takes its
    frequencies there); method "none" gives plain RoPE. What the chapter's figures compare, rule by rule."""
    if method == "none":
        return inv_freq(d, base), 1.0
    if not isinstance(method, str) or method not in FACTOR_RULES:
        raise ValueError(f"method must be 'none' or one of FACTOR_RULES {FACTOR_RULES}, got {method!r}")
    require_positive_int(original_max_len, "original_max_len")
    rule = RopeScaling(method, factor, original_max_len=original_max_len)
    return SCALING_RULES[method](rule, d, base, int(factor * original_max_len)), rule.attention_factor


def angle_coverage_arguments(a) -> None:
    arguments(d=require_even_dim, context_len=require_positive_int)(a)
    inv_freq_or_base_arguments(a, a["d"])


@checked_by(angle_coverage_arguments)
def angle_coverage(
    d: int,
    base: float = DEFAULT_BASE,
    context_len: int = 4096,
    *,
    inv_freq=None,
) -> np.ndarray:
    """The share of a full turn that pair i sweeps over positions 0 … L−1:
    min(1, (L−1)·θ_i / 2π), shape (d/2,).

    Pairs with coverage 1 have met every angle in training; the others
    meet new angles as soon as the context grows past L.
    """
    if inv_freq is None:
        inv_freq = frequencies.inv_freq(d, base)
    theta = np.asarray(inv_freq)
    return np.minimum(1.0, (context_len - 1) * theta / (2 * np.pi))
