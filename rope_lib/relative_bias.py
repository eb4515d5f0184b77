"""Relative position as a bias added to the attention score: T5's buckets and ALiBi's lines.

RoPE turns q and k so that their dot product sees m − n; these schemes leave q and k alone and add a
number that depends on the distance to the score of every query–key pair, before the softmax. The
biases come as (H, T_q, T_k), one matrix per head, to add to the scores of that head.
With no positional encoding at all (NoPE) the bias is 0 and a decoder's causal mask, `causal_mask`
in `rope_lib.llama`, is the only thing that knows the order. Chapter "Why does RoPE work?".

Relative positions are key − query, as in T5: −3 is a key three tokens before its query.
"""

from __future__ import annotations

import math

import torch

from ._validate import arguments, checked_by, refuse, require_bool, require_float_dtype, require_float_tensor, require_positions, require_positive_int


def _bucket_layout(bidirectional: bool, num_buckets: int) -> tuple[int, int]:
    """T5's buckets for one direction and how many of them are exact (one distance each)."""
    per_direction = num_buckets // 2 if bidirectional else num_buckets
    return per_direction, per_direction // 2


def t5_bucket_arguments(a, num_buckets: int | None = None) -> None:
    """The buckets of each direction (num_buckets, or a["num_buckets"]): some exact, some logarithmic, up to max_distance."""
    num_buckets = a["num_buckets"] if num_buckets is None else num_buckets
    bidirectional = require_bool(a["bidirectional"], "bidirectional")
    require_positive_int(num_buckets, "num_buckets"), require_positive_int(a["max_distance"], "max_distance")
    if bidirectional and num_buckets % 2:
        refuse("num_buckets", "be even when bidirectional (half of them for keys after the query)", num_buckets)
    per_direction, exact = _bucket_layout(a["bidirectional"], num_buckets)
    if per_direction < 2:
        refuse("num_buckets", "give each direction at least 2 buckets (exact ones and logarithmic ones)", num_buckets)
    if a["max_distance"] <= exact:
        refuse("max_distance", f"be greater than the {exact} distances that have a bucket each", a["max_distance"])


def position_vectors_arguments(a, device=None) -> None:
    """Query and key positions: integer vectors, the queries on `device` (when given), the keys on the queries'."""
    query = require_positions(a["query_positions"], "query_positions", device)
    key = require_positions(a["key_positions"], "key_positions", query.device if device is None else device)
    for name, positions in (("query_positions", query), ("key_positions", key)):
        if positions.dim() != 1:
            refuse(name, "be a vector of token positions", f"shape {tuple(positions.shape)}")


def _log_bucket_edges(per_direction: int, exact: int, max_distance: int) -> list[int]:
    """The first distance of each logarithmic bucket but the first, in exact integer arithmetic.

    T5's formula puts distance r ≥ exact in bucket exact + ⌊P·log(r/exact)/log(max_distance/exact)⌋, at most
    per_direction − 1, with P = per_direction − exact. So r reaches bucket exact + j when
    (r/exact)^P ≥ (max_distance/exact)^j, that is r^P·exact^j ≥ max_distance^j·exact^P: integers, so that
    no rounding of a logarithm can move a distance that sits exactly on an edge.
    """
    span = per_direction - exact
    edges = []
    for j in range(1, span):
        def reaches(r: int) -> bool:
            return r**span * exact**j >= max_distance**j * exact**span

        edge = math.ceil(exact * (max_distance / exact) ** (j / span))  # a guess within a step or two
        while reaches(edge - 1):
            edge -= 1
        while not reaches(edge):
            edge += 1
        edges.append(edge)
    return edges


@checked_by(t5_bucket_arguments, arguments(relative_position=require_positions))
def t5_relative_bucket(relative_position, *, bidirectional: bool = True, num_buckets: int = 32, max_distance: int = 128) -> torch.Tensor:
    """T5's bucket of each relative position key − query (Raffel et al. 2020, §2.1), int64 of the same shape.

    Per direction, the first half of the buckets hold one distance each (0, 1, …); the other half split
    the distances up to max_distance into ranges of logarithmically growing width, and every distance
    from max_distance on shares the last bucket. Bidirectional (an encoder): keys after the query use
    buckets of their own, num_buckets/2 and up. Unidirectional (a decoder): only keys at or before the
    query are told apart, and every key after it lands in bucket 0 with the query itself, since the
    causal mask removes them.
    """
    per_direction, exact = _bucket_layout(bidirectional, num_buckets)
    relative = torch.as_tensor(relative_position)  # a list of ints too
    if bidirectional:
        first = (relative > 0).to(torch.int64) * per_direction  # keys after the query: the upper half
        distance = relative.abs()
    else:
        first = torch.zeros_like(relative)
        distance = (-relative).clamp(min=0)
    edges = torch.tensor(_log_bucket_edges(per_direction, exact, max_distance), dtype=torch.int64, device=relative.device)
    log_bucket = exact + torch.searchsorted(edges, distance, right=True)  # exact + the number of edges ≤ distance
    return first + torch.where(distance < exact, distance, log_bucket)


def t5_relative_bias_arguments(a) -> None:
    bucket_bias = require_float_tensor(a["bucket_bias"], "bucket_bias")
    if bucket_bias.dim() != 2:
        refuse("bucket_bias", "have shape (num_buckets, H)", f"{bucket_bias.dim()} dimensions {tuple(bucket_bias.shape)}")
    t5_bucket_arguments(a, bucket_bias.shape[0])
    position_vectors_arguments(a, bucket_bias.device)


@checked_by(t5_relative_bias_arguments)
def t5_relative_bias(query_positions, key_positions, bucket_bias, *, bidirectional: bool = True, max_distance: int = 128) -> torch.Tensor:
    """(H, T_q, T_k): the bias T5 adds to the score of query m and key n, bucket_bias[bucket(n − m), h].

    bucket_bias (num_buckets, H) is T5's table of one bias per bucket and head, learned with the model
    and shared by all its layers.
    """
    query, key = (torch.as_tensor(p, device=bucket_bias.device) for p in (query_positions, key_positions))
    buckets = t5_relative_bucket(key[None, :] - query[:, None], bidirectional=bidirectional, num_buckets=bucket_bias.shape[0], max_distance=max_distance)
    return bucket_bias[buckets].permute(2, 0, 1)  # (T_q, T_k, H) → (H, T_q, T_k)


@checked_by(arguments(n_heads=require_positive_int))
def alibi_slopes(n_heads: int) -> torch.Tensor:
    """ALiBi's slope of each head (Press et al. 2022, §3), float64 of shape
    (n_heads,).

    For n heads, a power of two, the slopes are 2^(−8/n), 2^(−16/n), …,
    2^(−8): a geometric sequence whose first term is its ratio. For other
    n, the rule of the authors' code (which BLOOM follows): the n' slopes
    of the largest power of two n' below n, then the first n − n' of the
    slopes for 2n' heads that fall between them (the ones at odd places of
    that sequence).
    """
    # the largest power of two ≤ n_heads
    power = 1 << (int(n_heads).bit_length() - 1)

    def geometric(count: int) -> torch.Tensor:
        k = torch.arange(1, count + 1, dtype=torch.float64)
        return 2.0 ** (-8.0 * k / count)

    # 2^(−8·1/2n'), 2^(−8·3/2n'), …
    between = geometric(2 * power)[0::2][: n_heads - power]
    return torch.cat([geometric(power), between])


@checked_by(arguments(dtype=require_float_dtype, n_heads=require_positive_int), position_vectors_arguments)
def alibi_bias(query_positions, key_positions, n_heads: int, *, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """(H, T_q, T_k): the bias ALiBi adds to the score of query m and key n, −slope_h · (m − n).

    It falls linearly with the distance, at a different rate in every head. Keys after the query get a
    positive bias; a causal mask removes them (ALiBi is defined for decoders).
    """
    slopes = alibi_slopes(n_heads)
    query = torch.as_tensor(query_positions)  # a list of ints too
    key = torch.as_tensor(key_positions, device=query.device)
    distance = (query[:, None] - key[None, :]).to(torch.float64)  # (T_q, T_k)
    return (-slopes.to(distance.device)[:, None, None] * distance).to(dtype)
