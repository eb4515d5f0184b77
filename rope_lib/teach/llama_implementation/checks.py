"""The auto-checks of the exercises in the chapter "The implementation in LLaMA" (book/llama_implementation.md)."""

from __future__ import annotations

import numpy as np
import torch

from ...layouts import permute_rows_to_half, permute_rows_to_interleaved
from ...rope import apply_rope, rope_cos_sin, rotate_pairs
from ..shared.language import Words, require_language
from ..shared.checking import (
    F32_EPS,
    CheckResult,
    Described,
    Hint,
    answer_tensor,
    call_student,
    case_seed,
    described,
    diagnose,
    mismatch,
    normal_case,
    random_heads,
    reading_answer,
    run_check,
    significant_bits,
)

FLOAT16_START = 4093
"""A start position past 2048, the last of float16's run of whole numbers: positions held in float16 round there
(4093 → 4092, 4097 → 4096), so a check that starts a case at it catches that mistake every time."""

ROUNDING_DTYPES = {torch.bfloat16: "bf16", torch.float16: "float16"}
"""The half-precision types positions are wrongly held in, by the name a hint gives them."""


def _rounding_mistakes(positions: torch.Tensor, call: Described, then: Words | None) -> list[tuple[torch.Tensor, Words]]:
    """For each half-precision type that changes some of `positions` (T,): the positions it holds, and the hint for an
    answer turned to them, naming the first position it moved; `then`: what to do instead, where the exercise says."""
    found = []
    for dtype, name in ROUNDING_DTYPES.items():
        held = positions.to(dtype).long()  # (T,)
        if torch.equal(held, positions):
            continue
        moved = int((held != positions).long().argmax())
        was, became, exact = positions[moved].item(), held[moved].item(), 2 ** significant_bits(dtype)
        found.append((held, Words(
            f"{call.en}: positions — they were rounded to {name} before the angles were computed (position {was} became {became}: "
            f"{name} holds every whole number only up to {exact})" + (f"; {then.en}" if then else ""),
            f"{call.zh}：位置错了——计算角度之前，位置先被舍入成了 {name}（位置 {was} 变成了 {became}：{name} 只能精确表示"
            f"不超过 {exact} 的每个整数）" + (f"；{then.zh}" if then else ""))))
    return found


KEEP_POSITIONS = Words("keep the integer positions and compute the angles from them in float64, as rope_cos_sin does",
                       "请保留整数位置，像 rope_cos_sin 那样用 float64 由它们计算角度")


def check_rope_half(rope_half, *, lang: str = "en") -> CheckResult:
    """Exercise llama-ex-rotate-half: `rope_half(x, positions)` applies RoPE in the half layout to x (B, T, H, D)."""
    require_language(lang)

    def body(fn):
        gen, rng = torch.Generator().manual_seed(0), np.random.default_rng(1)
        cases = []
        for shape, start in (((2, 9, 3, 32), 50), ((1, 4, 2, 8), 0), ((1, 5, 1, 16), 1000), ((1, 6, 2, 16), FLOAT16_START)):
            x = torch.randn(*shape, generator=gen, dtype=torch.float64)  # (B, T, H, D)
            cases.append((x, start, Words(f"rope_half(x of shape {shape}, positions {start}…{start + shape[1] - 1})",
                                            f"rope_half(形状为 {shape} 的 x，位置 {start}…{start + shape[1] - 1})")))
        for _ in range(2):
            x, start, rebuild = random_heads(rng, 32)
            cases.append((x, start, f"rope_half(x, positions=torch.arange({start}, {start + x.shape[1]})) with x = {rebuild}"))
        close = lambda a, b: torch.allclose(a, b, rtol=0, atol=1e-9)  # noqa: E731
        for x, start, call in cases:
            call = described(call)
            positions = torch.arange(start, start + x.shape[1])  # (T,)
            value = answer_tensor(call_student(fn, call, x, positions), call, x,
                                  Words("one rotated vector per head", "每个注意力头一个旋转后的向量"), Words("x's", " x "))
            expected = apply_rope(x, positions, layout="half")
            if close(value, expected):
                continue
            cos, sin = rope_cos_sin(positions, x.shape[-1], dtype=torch.float64)  # (T, D/2)
            diagnose(value, [
                (lambda: apply_rope(x, positions, layout="interleaved"), Words(
                    f"{call.en}: pairing — you paired neighbours (x_2i, x_2i+1), the interleaved layout; the half layout pairs x_i with x_(i+D/2)",
                    f"{call.zh}：配对错了——你把相邻两维 (x_2i, x_2i+1) 配成一对，那是交错布局；半分布局把 x_i 与 x_(i+D/2) 配成一对")),
                (lambda: apply_rope(x, torch.arange(x.shape[1]), layout="half"), Words(
                    f"{call.en}: positions — your vectors are turned to positions 0…T−1; use the positions passed in (offset by start_pos = {start})",
                    f"{call.zh}：位置错了——你的向量被转到了位置 0…T−1；请使用传入的位置（从 start_pos = {start} 起）")),
                (lambda: rotate_pairs(x, sin, cos, layout="half"), Words(
                    f"{call.en}: cos and sin swapped — x⊗cos + rotate_half(x)⊗sin; at position 0 nothing may move",
                    f"{call.zh}：cos 和 sin 用反了——应为 x⊗cos + rotate_half(x)⊗sin；在位置 0 什么都不该动")),
                (lambda: apply_rope(x, -positions, layout="half"), Words(
                    f"{call.en}: direction — rotate_half must map (x1, x2) to (−x2, x1); yours turns the other way",
                    f"{call.zh}：方向反了——rotate_half 应把 (x1, x2) 变成 (−x2, x1)；你的转向了另一边")),
                *[(lambda held=held: apply_rope(x, held, layout="half"), hint)
                  for held, hint in _rounding_mistakes(positions, call, KEEP_POSITIONS)],
            ], close)
            if start == 0 and not close(value[:, :1], x[:, :1]):
                raise Hint(f"{call.en}: the token at position 0 must come back unchanged",
                           f"{call.zh}：位置 0 上的词元必须原样返回")
            raise mismatch(call, value, expected, Words("RoPE in the half layout", "半分布局的 RoPE"))

    return run_check("llama-ex-rotate-half", rope_half, body, Words(
        f"rope_half matches rope_lib.apply_rope(x, positions, layout='half') for four shapes, offsets 0, 50, 1000 and {FLOAT16_START} "
        "and two seeded random ones.",
        f"rope_half 与 rope_lib.apply_rope(x, positions, layout='half') 一致：四种形状、偏移 0、50、1000 和 {FLOAT16_START}，"
        "以及两组固定种子的随机输入都通过了。"),
        lang)


def _same_lines(a: torch.Tensor, b: torch.Tensor) -> bool:
    """a's rows are b's rows, in some order."""
    return sorted(map(tuple, a.tolist())) == sorted(map(tuple, b.tolist()))


def _layout_scores(w_q: torch.Tensor, w_k: torch.Tensor, x: torch.Tensor, n_heads: int, positions: torch.Tensor, layout: str) -> torch.Tensor:
    """Scores q_m·k_n (H, T, T) of tokens x (T, in) with rows w_q, w_k (H·D, in), rotated in `layout`."""
    heads = lambda w: (x @ w.T).view(1, x.shape[0], n_heads, -1)  # noqa: E731  (1, T, H, D)
    q, k = apply_rope(heads(w_q), positions, layout=layout), apply_rope(heads(w_k), positions, layout=layout)
    return torch.einsum("bthd,bshd->hts", q, k)


def check_permute_rows(permute_rows, *, lang: str = "en") -> CheckResult:
    """Exercise llama-ex-permute: `permute_rows(w, n_heads)` reorders the rows of W_q or W_k (n_heads·head_dim,
    in_features), written for Meta's interleaved layout, so that the half layout computes the same scores."""
    require_language(lang)

    def body(fn):
        gen, rng = torch.Generator().manual_seed(3), np.random.default_rng(3)
        cases = []
        for n_heads, head_dim, features in ((4, 8, 12), (2, 16, 32), (3, 4, 5)):
            w_q, w_k = (torch.randn(n_heads * head_dim, features, generator=gen, dtype=torch.float64) for _ in range(2))
            shape = tuple(w_q.shape)
            cases.append((w_q, w_k, n_heads, Words(f"permute_rows(w of shape {shape}, n_heads={n_heads})", f"permute_rows(形状为 {shape} 的 w，n_heads={n_heads})"),
                          Words(f"permute_rows(a second w of shape {shape}, n_heads={n_heads})",
                                f"permute_rows(第二个形状为 {shape} 的 w，n_heads={n_heads})")))
        for _ in range(2):
            n_heads, head_dim, features = int(rng.integers(2, 5)), 2 * int(rng.integers(2, 9)), int(rng.integers(3, 21))
            seeds = case_seed(rng), case_seed(rng)
            (q, rebuild_q), (k, rebuild_k) = (normal_case(seed, (n_heads * head_dim, features)) for seed in seeds)
            cases.append((torch.from_numpy(q), torch.from_numpy(k), n_heads,
                          f"permute_rows(w, n_heads={n_heads}) with w = torch.from_numpy({rebuild_q})",
                          f"permute_rows(w, n_heads={n_heads}) with w = torch.from_numpy({rebuild_k})"))
        x = torch.randn(7, 32, generator=gen, dtype=torch.float64)  # (T, in): seven tokens
        positions = torch.arange(3, 10)  # (T,)
        each = Words("the same rows as w, in a new order (n_heads·head_dim rows of in_features entries)",
                     "与 w 相同的行，换一个顺序（n_heads·head_dim 行，每行 in_features 个元素）")
        whose = Words("w's", "w ")
        for w_q, w_k, n_heads, call, call_k in cases:
            call, call_k = described(call), described(call_k)
            value = call_student(fn, call, w_q, n_heads)
            if isinstance(value, torch.Tensor) and w_q.shape[0] != w_q.shape[1] and value.shape == w_q.T.shape:
                raise Hint(f"{call.en} returned shape {tuple(value.shape)}: rows and columns — the matrix came back transposed; "
                           "W keeps one row per output coordinate",
                           f"{call.zh} 返回的形状是 {tuple(value.shape)}：行列弄反了——矩阵被转置了；W 的每一行对应一个输出坐标")
            value = answer_tensor(value, call, w_q, each, whose)
            expected = permute_rows_to_half(w_q, n_heads)
            if torch.equal(value, expected):
                value_k = answer_tensor(call_student(fn, call_k, w_k, n_heads), call_k, w_k, each, whose)
                if torch.equal(value_k, permute_rows_to_half(w_k, n_heads)):
                    continue
                raise Hint(f"{call_k.en}: right for the first matrix of this shape, wrong for a second one: reorder the rows you are given",
                           f"{call_k.zh}：这个形状的第一个矩阵对了，第二个却错了：请重排传给你的那些行")
            rows, tokens = w_q.shape[0], x[:, : w_q.shape[1]]
            interleaved = _layout_scores(w_q, w_k, tokens, n_heads, positions, "interleaved")
            gap = (_layout_scores(value, permute_rows_to_half(w_k, n_heads), tokens, n_heads, positions, "half") - interleaved).abs().max().item()
            diagnose(value, [
                (lambda: w_q, Words(
                    f"{call.en}: unchanged — the rows come back in their original order, and the half layout's scores differ from "
                    f"the interleaved layout's by up to {gap:.3g}: the two layouts pair different coordinates",
                    f"{call.zh}：没有变化——各行按原来的顺序返回，半分布局的得分与交错布局的相差最多 {gap:.3g}：两种布局配对的坐标不同")),
                (lambda: permute_rows_to_half(w_q, 1), Words(
                    f"{call.en}: per head — your order moves rows from one head into another; RoPE pairs coordinates inside one head, so each "
                    f"head's head_dim rows must stay within that head (here {n_heads} heads of {rows // n_heads} rows)",
                    f"{call.zh}：要按头重排——你的顺序把一些行从一个头挪到了另一个头；RoPE 只在同一个头内部配对坐标，所以每个头的 "
                    f"head_dim 行必须留在这个头里（这里是 {n_heads} 个头，每个 {rows // n_heads} 行）")),
                (lambda: permute_rows_to_interleaved(w_q, n_heads), Words(
                    f"{call.en}: direction — your order is the inverse one: it would convert half-layout rows to the interleaved layout",
                    f"{call.zh}：方向反了——你的顺序是逆置换：它会把半分布局的行转换成交错布局")),
            ], torch.equal)
            if not _same_lines(value, w_q):
                if _same_lines(value.T, w_q.T):
                    raise Hint(f"{call.en}: columns — you reordered the columns (the input features); RoPE turns the outputs of W, one output per row",
                               f"{call.zh}：动的是列——你重排了列（输入特征）；RoPE 旋转的是 W 的输出，每行一个输出")
                if sorted(value.flatten().tolist()) == sorted(w_q.flatten().tolist()):
                    raise Hint(f"{call.en}: rows and columns — entries moved between rows; a row of W holds the weights of one output "
                               "coordinate, so move whole rows and keep each one as it is",
                               f"{call.zh}：行列混了——元素在行与行之间挪动了；W 的一行是一个输出坐标的权重，"
                               "所以要整行移动，每一行本身保持不变")
                raise Hint(f"{call.en}: your matrix holds other numbers than w; only reorder its rows, do not change them",
                           f"{call.zh}：你的矩阵里的数和 w 不一样；只重排它的行，不要改动数值")
            if gap > 1e-9:
                raise Hint(f"{call.en}: with your rows for W_q (and the right ones for W_k) the half layout's scores differ from the "
                           f"interleaved layout's by up to {gap:.3g}",
                           f"{call.zh}：W_q 用你的行（W_k 用正确的行）时，半分布局的得分与交错布局的相差最多 {gap:.3g}")
            raise Hint(f"{call.en}: the scores agree but the rows are not in the order of the conversion between the two layouts",
                       f"{call.zh}：得分一致，但各行的顺序不是两种布局之间转换所用的顺序")

    return run_check("llama-ex-permute", permute_rows, body, Words(
        "permute_rows reorders the rows of W_q and W_k so that the half layout scores exactly as the interleaved layout did, "
        "for three shapes and two seeded random ones.",
        "permute_rows 重排了 W_q 和 W_k 的行，使半分布局算出的得分与交错布局完全相同：三种形状和两组固定种子的随机输入都通过了。"),
        lang)


def _answer_pair(value, call: str | Words, xq: torch.Tensor, xk: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The student's (rotated xq, rotated xk), each of its input's shape and dtype."""
    call = described(call)
    with reading_answer(call, value, Words("a pair (xq rotated, xk rotated)", "一对结果（旋转后的 xq, 旋转后的 xk）")):
        if not isinstance(value, (tuple, list)) or len(value) != 2:
            raise Hint(f"{call.en} returned {type(value).__name__}, expected a pair (xq rotated, xk rotated)",
                       f"{call.zh} 返回了 {type(value).__name__}，应为一对结果（旋转后的 xq, 旋转后的 xk）")
    each = Words("one rotated vector per token and head", "每个词元、每个注意力头一个旋转后的向量")
    return (answer_tensor(value[0], Words(call.en + "[0]", call.zh + "[0]"), xq, each, Words("xq's", " xq ")),
            answer_tensor(value[1], Words(call.en + "[1]", call.zh + "[1]"), xk, each, Words("xk's", " xk ")))


def _scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """q_m·k_n (B, H, T, T) in float64."""
    return torch.einsum("bthd,bshd->bhts", q.double(), k.double())


def _diagnose_rotation(got: torch.Tensor, y: torch.Tensor, call: Described, positions: torch.Tensor, reference, close) -> None:
    """Raise the hint for rotate_qk's wrong answer `got` for y (xq or xk) at `positions` (T,): a known mistake's where it
    fits, else how far it is from `reference(y)`, y turned by RoPE."""
    start, end = positions[0].item(), positions[-1].item()
    cos, sin = rope_cos_sin(positions, y.shape[-1], dtype=torch.float64)  # (T, D/2)
    diagnose(got, [
        (lambda: reference(y, layout="half"), Words(
            f"{call.en}: pairing — your function turns x_i together with x_(i+D/2), Hugging Face's half layout; this model's weights "
            "pair neighbours (x_2i, x_2i+1), Meta's interleaved layout",
            f"{call.zh}：配对错了——你的函数把 x_i 与 x_(i+D/2) 一起旋转，那是 Hugging Face 的半分布局；这个模型的权重"
            "把相邻两维 (x_2i, x_2i+1) 配成一对，即 Meta 的交错布局")),
        (lambda: reference(y, -positions), Words(
            f"{call.en}: direction — each pair turned by −mθ_i; RoPE turns by +mθ_i",
            f"{call.zh}：方向反了——每个维度对转了 −mθ_i；RoPE 应转 +mθ_i")),
        (lambda: reference(y, positions + 1), Words(
            f"{call.en}: off by one — the first token sits at position start_pos = {start}, not start_pos + 1",
            f"{call.zh}：差了一位——第一个词元在位置 start_pos = {start}，而不是 start_pos + 1")),
        (lambda: reference(y, positions - 1), Words(
            f"{call.en}: off by one — the first token sits at position start_pos = {start}, not start_pos − 1",
            f"{call.zh}：差了一位——第一个词元在位置 start_pos = {start}，而不是 start_pos − 1")),
        (lambda: rotate_pairs(y.double(), sin, cos).float(), Words(
            f"{call.en}: cos and sin swapped — at position 0 nothing may move",
            f"{call.zh}：cos 和 sin 用反了——在位置 0 什么都不该动")),
        *[(lambda held=held: reference(y, held), hint) for held, hint in _rounding_mistakes(positions, call, None)],
    ], close)
    raise mismatch(call, got, reference(y), Words(f"RoPE's turn to positions {start} … {end}", f"RoPE 转到位置 {start} … {end} 的结果"))


def check_rotate_qk(rotate_qk, *, lang: str = "en") -> CheckResult:
    """Exercise llama-ex-debug: `rotate_qk(xq, xk, start_pos)` rotates queries and keys (B, T, H, D) of the tokens at
    positions start_pos … start_pos + T − 1, pairs (x_2i, x_2i+1) as in Meta's weights, and returns them in their dtype."""
    require_language(lang)

    def body(fn):
        gen, rng = torch.Generator().manual_seed(4), np.random.default_rng(4)
        randn = lambda *shape: torch.randn(*shape, generator=gen)  # noqa: E731  float32

        def run(call, xq, xk, start_pos):
            return _answer_pair(call_student(fn, call, xq, xk, start_pos), call, xq, xk)

        xq, xk = randn(1, 6, 2, 16), randn(1, 6, 2, 16)

        def call_at(start: int) -> Words:
            return Words(f"rotate_qk(xq, xk, start_pos={start}) with xq, xk of shape (1, 6, 2, 16)",
                         f"rotate_qk(xq, xk, start_pos={start})，其中 xq、xk 的形状为 (1, 6, 2, 16)")

        q0, k0 = run(call_at(0), xq, xk, 0)
        q40, k40 = run(call_at(40), xq, xk, 40)
        if torch.equal(q40, xq) and torch.equal(k40, xk):
            raise Hint(f"{call_at(40).en}: nothing turned — the queries and keys come back unchanged at positions 40 … 45",
                       f"{call_at(40).zh}：什么都没转——在位置 40 … 45 上，查询和键原样返回")
        moved = (_scores(q0, k0) - _scores(q40, k40)).abs().max().item()
        if moved > 1e-3:
            raise Hint(f"{call_at(0).en} and at start_pos=40: scores depend on the absolute position — moving all six tokens by 40 "
                       f"changes the scores q_m·k_n by up to {moved:.3g}, but RoPE's score may depend only on m − n",
                       f"{call_at(0).zh} 与 start_pos=40 时：得分依赖绝对位置——把六个词元全部后移 40，"
                       f"得分 q_m·k_n 最多变化 {moved:.3g}，而 RoPE 的得分只能依赖 m − n")

        xq, xk = randn(1, 8, 2, 16), randn(1, 8, 2, 16)
        full_q, full_k = run(Words("rotate_qk(xq, xk, 0) with xq, xk of shape (1, 8, 2, 16)",
                                   "rotate_qk(xq, xk, 0)，其中 xq、xk 的形状为 (1, 8, 2, 16)"), xq, xk, 0)
        for t in range(8):
            step = f"rotate_qk(xq[:, {t}:{t + 1}], xk[:, {t}:{t + 1}], start_pos={t})"
            q_t, k_t = run(step, xq[:, t : t + 1], xk[:, t : t + 1], t)
            if not (torch.allclose(q_t, full_q[:, t : t + 1], rtol=0, atol=1e-5) and torch.allclose(k_t, full_k[:, t : t + 1], rtol=0, atol=1e-5)):
                raise Hint(f"{step}: cached decoding differs from one full pass at step t={t} — token {t} decoded alone is turned "
                           f"differently from the same token in one pass over positions 0 … 7",
                           f"{step}：在第 t={t} 步，带缓存的解码与一次完整计算不一致——单独解码的词元 {t}，"
                           f"与在位置 0 … 7 上一次算完时的同一个词元转过的角度不同")

        x = randn(1, 1, 1, 32).to(torch.bfloat16).expand(1, 2, 1, 32).contiguous()  # (1, 2, 1, 32): one vector at two positions
        call = Words("rotate_qk(x, x, start_pos=256) with x in bfloat16 holding one vector at both tokens",
                     "rotate_qk(x, x, start_pos=256)，其中 x 为 bfloat16，两个词元上是同一个向量")
        q, _ = run(call, x, x, 256)
        if torch.equal(q[:, 0], q[:, 1]):
            raise Hint(f"{call.en}: positions 256 and 257 get the same rotation",
                       f"{call.zh}：位置 256 和 257 得到了相同的旋转")
        bf16 = x, q, call

        cases = []
        for shape, start in (((2, 5, 3, 16), 37), ((1, 3, 2, 8), 1000), ((1, 6, 2, 16), FLOAT16_START)):
            cases.append((randn(*shape), randn(*shape), start, Words(f"rotate_qk(xq, xk, start_pos={start}) with xq, xk of shape {shape}",
                                                                     f"rotate_qk(xq, xk, start_pos={start})，其中 xq、xk 的形状为 {shape}")))
        for _ in range(2):
            x, start, rebuild = random_heads(rng, 32)
            cases.append((x.float(), x.flip(1).float(), start, f"rotate_qk(xq, xq.flip(1), start_pos={start}) with xq = {rebuild}.float()"))
        for xq, xk, start, call in cases:
            call = described(call)
            positions = torch.arange(start, start + xq.shape[1])  # (T,)
            atol = 1e-5 + 8 * F32_EPS * (start + xq.shape[1])  # float32 angles may err by about m·eps
            close = lambda a, b: torch.allclose(a.double(), b.double(), rtol=0, atol=atol)  # noqa: E731
            reference = lambda y, p=positions, **kw: apply_rope(y.double(), p, **({"layout": "interleaved", "order": "BTHD"} | kw)).float()  # noqa: E731
            for got, y, part in zip(run(call, xq, xk, start), (xq, xk), ("[0]", "[1]")):
                if not close(got, reference(y)):
                    _diagnose_rotation(got, y, Described(call.en + part, call.zh + part), positions, reference, close)
        x, q, call = bf16
        gap = (q.double() - apply_rope(x.double(), torch.arange(256, 258), layout="interleaved").to(torch.bfloat16).double()).abs().max().item()
        if gap > 0.05:
            raise Hint(f"{call.en}: the result differs from RoPE at positions 256 and 257 by {gap:.3g}, more than bfloat16 rounding",
                       f"{call.zh}：在位置 256 和 257 上，结果与 RoPE 相差 {gap:.3g}，超出了 bfloat16 的舍入误差")

    return run_check("llama-ex-debug", rotate_qk, body, Words(
        "rotate_qk keeps scores relative, decodes token by token as in one pass, tells position 257 from 256 in bfloat16 "
        f"and matches RoPE in the interleaved layout for three shapes, from start_pos 37, 1000 and {FLOAT16_START}, and two seeded random ones.",
        "rotate_qk 的得分只依赖相对位置，逐个词元解码与一次算完的结果相同，在 bfloat16 下能区分位置 257 和 256，"
        f"并且在三种形状（start_pos 为 37、1000 和 {FLOAT16_START}）和两组固定种子的随机输入上与交错布局的 RoPE 一致。"),
        lang)
