"""T5's relative buckets and ALiBi's biases against the papers' formulas written out slowly, against
transformers' T5 and BLOOM, and their bad-input errors."""

import math
from fractions import Fraction

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import rope_lib
from rope_lib.llama import causal_mask
from rope_lib.relative_bias import alibi_bias, alibi_slopes, t5_relative_bias, t5_relative_bucket


def slow_t5_bucket(relative, bidirectional, num_buckets, max_distance):
    """Raffel et al. 2020 §2.1, one position at a time: half the buckets of a direction are exact, the rest
    logarithmic up to max_distance; the logarithm compared in exact rational arithmetic."""
    start = 0
    if bidirectional:
        num_buckets //= 2
        if relative > 0:
            start = num_buckets
        distance = abs(relative)
    else:
        distance = max(-relative, 0)
    exact = num_buckets // 2
    if distance < exact:
        return start + distance
    span = num_buckets - exact
    # the largest j with span·log(distance/exact)/log(max_distance/exact) ≥ j, i.e. (distance/exact)^span ≥ (max_distance/exact)^j
    j = 0
    while j + 1 < span and Fraction(distance, exact) ** span >= Fraction(max_distance, exact) ** (j + 1):
        j += 1
    return start + exact + j


def slow_alibi_slopes(n):
    """Press et al. 2022 §3: for a power of two, the geometric sequence starting at 2^(−8/n) with that ratio;
    otherwise the power of two below, then every other slope of twice that many heads."""
    def geometric(count):
        first = 2 ** (-8 / count)
        return [first ** (i + 1) for i in range(count)]

    power = 1
    while power * 2 <= n:
        power *= 2
    return geometric(power) + geometric(2 * power)[0::2][: n - power]


@given(relative=st.integers(-5000, 5000), bidirectional=st.booleans(), half=st.integers(2, 40), max_distance=st.integers(1, 3000))
def test_t5_bucket_is_the_papers_rule(relative, bidirectional, half, max_distance):
    num_buckets = 2 * half if bidirectional else half
    per_direction = num_buckets // 2 if bidirectional else num_buckets
    if max_distance <= per_direction // 2:
        return
    got = t5_relative_bucket([relative], bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance)
    assert got.dtype == torch.int64
    assert got.tolist() == [slow_t5_bucket(relative, bidirectional, num_buckets, max_distance)]


def test_t5_defaults_buckets_by_hand():
    """32 buckets up to 128. A decoder has one direction: distances 0 … 15 exact, then 16 logarithmic buckets,
    the last from 16·8^(15/16) ≈ 112.4 on. An encoder has 16 per direction: 0 … 7 exact, then 8 logarithmic,
    the last from 8·16^(7/8) ≈ 90.5 on; keys after the query count from bucket 16."""
    rel = torch.arange(-300, 301)
    decoder = t5_relative_bucket(rel, bidirectional=False)
    assert decoder[rel > 0].eq(0).all() and decoder[rel == -15].item() == 15 and decoder[rel == -16].item() == 16
    assert decoder[rel == -112].item() == 30 and decoder[rel <= -113].eq(31).all()
    encoder = t5_relative_bucket(rel)
    assert encoder[rel == 0].item() == 0 and encoder[rel == -1].item() == 1 and encoder[rel == 1].item() == 17
    assert encoder[rel == -90].item() == 14 and encoder[rel <= -91].eq(15).all() and encoder[rel >= 91].eq(31).all()
    assert encoder.min() == 0 and encoder.max() == 31


@pytest.mark.parametrize(
    "bidirectional, num_buckets, max_distance",
    [(True, 32, 128), (False, 32, 128), (True, 64, 256), (False, 16, 64), (True, 8, 20), (False, 5, 9)],
)
def test_t5_bucket_matches_transformers(bidirectional, num_buckets, max_distance):
    from transformers.models.t5.modeling_t5 import T5Attention

    rel = torch.arange(-5000, 5001)
    ours = t5_relative_bucket(rel, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance)
    theirs = T5Attention._relative_position_bucket(rel, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance)
    assert torch.equal(ours, theirs)


def test_t5_bucket_differs_from_transformers_only_on_exact_edges():
    """transformers takes the logarithm in float32; at a distance whose bucket number is exactly an integer
    its rounding can fall below it. rope_lib compares in integers, so it agrees with the exact rule there."""
    from transformers.models.t5.modeling_t5 import T5Attention

    rel = torch.arange(-200, 201)
    differ = 0
    for bidirectional in (True, False):
        for num_buckets in range(4, 60, 2):
            for max_distance in range(num_buckets // 2 + 1, 80):
                ours = t5_relative_bucket(rel, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance)
                theirs = T5Attention._relative_position_bucket(rel, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance)
                for r in rel[ours != theirs].tolist():
                    differ += 1
                    assert ours[rel == r].item() == slow_t5_bucket(r, bidirectional, num_buckets, max_distance)
                    per_direction = num_buckets // 2 if bidirectional else num_buckets
                    exact, span = per_direction // 2, per_direction - per_direction // 2
                    assert any(abs(r) ** span * exact**j == max_distance**j * exact**span for j in range(1, span))  # on an edge
    assert differ > 0  # such edges exist in this sweep


def test_t5_relative_bias_matches_transformers_compute_bias():
    from transformers import T5Config
    from transformers.models.t5.modeling_t5 import T5Attention

    for is_decoder in (False, True):
        config = T5Config(d_model=16, d_kv=4, num_heads=4, relative_attention_num_buckets=32, relative_attention_max_distance=128, is_decoder=is_decoder)
        layer = T5Attention(config, has_relative_attention_bias=True)
        torch.nn.init.normal_(layer.relative_attention_bias.weight, generator=torch.Generator().manual_seed(0))
        table = layer.relative_attention_bias.weight.detach()  # (32, 4)
        theirs = layer.compute_bias(40, 300, past_seen_tokens=200)[0]  # queries at 200 … 239, keys at 0 … 299
        ours = t5_relative_bias(range(200, 240), range(300), table, bidirectional=not is_decoder)
        assert ours.shape == (4, 40, 300)
        assert torch.equal(ours, theirs)


def test_t5_relative_bias_reads_the_table_at_each_bucket():
    table = torch.arange(32 * 2, dtype=torch.float64).reshape(32, 2)
    bias = t5_relative_bias([5, 9], [0, 5, 9, 400], table, bidirectional=False)
    for h in range(2):
        for i, m in enumerate([5, 9]):
            for j, n in enumerate([0, 5, 9, 400]):
                assert bias[h, i, j] == table[slow_t5_bucket(n - m, False, 32, 128), h]


@pytest.mark.parametrize("n", list(range(1, 70)))
def test_alibi_slopes_are_the_papers(n):
    slopes = alibi_slopes(n)
    assert slopes.shape == (n,) and slopes.dtype == torch.float64
    assert torch.allclose(slopes, torch.tensor(slow_alibi_slopes(n), dtype=torch.float64), rtol=1e-13, atol=0)


def test_alibi_slopes_for_eight_and_twelve_heads():
    assert alibi_slopes(8).tolist() == [2.0**-k for k in range(1, 9)]  # 1/2 … 1/256, exactly
    assert alibi_slopes(16)[1::2].tolist() == alibi_slopes(8).tolist()  # 16 heads interleave the 8
    twelve = alibi_slopes(12)
    assert twelve[:8].tolist() == alibi_slopes(8).tolist()
    assert torch.allclose(twelve[8:], torch.tensor([2**-0.5, 2**-1.5, 2**-2.5, 2**-3.5], dtype=torch.float64))


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 12, 16, 30, 64])
def test_alibi_slopes_match_bloom(n):
    from transformers.models.bloom.modeling_bloom import _get_alibi_slopes

    assert torch.allclose(alibi_slopes(n).float(), _get_alibi_slopes(n, torch.device("cpu")), rtol=1e-6, atol=0)


def test_alibi_bias_is_minus_slope_times_distance():
    slopes = slow_alibi_slopes(6)
    queries, keys = [3, 7], [0, 2, 3, 7, 9]
    bias = alibi_bias(queries, keys, 6, dtype=torch.float64)
    assert bias.shape == (6, 2, 5) and bias.dtype == torch.float64
    for h in range(6):
        for i, m in enumerate(queries):
            for j, n in enumerate(keys):
                assert math.isclose(bias[h, i, j].item(), -slopes[h] * (m - n), rel_tol=1e-13, abs_tol=0)
    assert alibi_bias(queries, keys, 6).dtype == torch.float32


def test_alibi_bias_gives_bloom_attention_weights():
    """BLOOM adds slope·(key index) rather than −slope·(query − key): the two differ by a constant per query,
    slope·query, which softmax ignores, so the attention weights under the causal mask are the same."""
    from transformers.models.bloom.modeling_bloom import build_alibi_tensor

    length = 20
    for heads in (8, 12):  # BLOOM's slopes are float32: exact for 8 heads, rounded for 12
        theirs = build_alibi_tensor(torch.ones(1, length, dtype=torch.long), heads, torch.float64)  # (H, 1, T)
        ours = alibi_bias(range(length), range(length), heads, dtype=torch.float64)  # (H, T, T)
        difference = ours - theirs
        assert torch.allclose(difference, difference[..., :1].expand_as(difference), atol=1e-5)
        scores = torch.randn(heads, length, length, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
        mask = causal_mask(length, 0).to(torch.float64)
        assert torch.allclose((scores + ours + mask).softmax(-1), (scores + theirs + mask).softmax(-1), atol=1e-5)


def test_nope_is_the_causal_mask_alone():
    """No positional encoding: the bias is zero and the causal mask's −∞ hides the keys after each query."""
    mask = causal_mask(4, 0)
    assert torch.equal(mask.isinf(), torch.triu(torch.ones(4, 4, dtype=torch.bool), diagonal=1))
    assert mask[~mask.isinf()].eq(0).all()


def test_bad_input_is_refused_by_name():
    with pytest.raises(ValueError, match=r"num_buckets must be even when bidirectional .* got 31"):
        t5_relative_bucket([0], num_buckets=31)
    with pytest.raises(ValueError, match=r"num_buckets must give each direction at least 2 buckets"):
        t5_relative_bucket([0], num_buckets=2)
    with pytest.raises(ValueError, match=r"num_buckets must be a positive integer, got 0"):
        t5_relative_bucket([0], bidirectional=False, num_buckets=0)
    with pytest.raises(ValueError, match=r"max_distance must be greater than the 8 distances that have a bucket each, got 8"):
        t5_relative_bucket([0], max_distance=8)
    with pytest.raises(TypeError, match=r"bidirectional must be True or False, got 'no'"):
        t5_relative_bucket([0], bidirectional="no")
    with pytest.raises(TypeError, match=r"relative_position must hold integers"):
        t5_relative_bucket([0.5])
    with pytest.raises(TypeError, match=r"relative_position must hold integers"):
        t5_relative_bucket(torch.tensor([1.0]))
    with pytest.raises(TypeError, match=r"max_distance must be an int"):
        t5_relative_bucket([0], max_distance=128.0)
    table = torch.zeros(32, 2)
    with pytest.raises(ValueError, match=r"bucket_bias must have shape \(num_buckets, H\), got 1 dimensions"):
        t5_relative_bias([0], [0], torch.zeros(32))
    with pytest.raises(TypeError, match=r"bucket_bias must be a torch.Tensor"):
        t5_relative_bias([0], [0], [[0.0]])
    with pytest.raises(ValueError, match=r"key_positions must be a vector of token positions, got shape \(1, 2\)"):
        t5_relative_bias([0], [[0, 1]], table)
    with pytest.raises(ValueError, match=r"n_heads must be a positive integer, got 0"):
        alibi_slopes(0)
    with pytest.raises(TypeError, match=r"n_heads must be an int"):
        alibi_slopes(8.0)
    with pytest.raises(ValueError, match=r"query_positions must be a vector of token positions"):
        alibi_bias([[0, 1]], [0], 8)
    with pytest.raises(TypeError, match=r"dtype must be a floating dtype"):
        alibi_bias([0], [0], 8, dtype=torch.int32)
    with pytest.raises(TypeError, match=r"key_positions must hold integers"):
        alibi_bias([0], [0.5], 8)


def test_t5_adds_its_bias_to_unscaled_scores():
    """The chapter's eq. wr-bias divides q·k by √d; T5 leaves that out (its attention's scaling is 1)."""
    from transformers import T5Config
    from transformers.models.t5.modeling_t5 import T5Attention

    assert T5Attention(T5Config(d_model=16, d_kv=4, num_heads=4)).scaling == 1.0
