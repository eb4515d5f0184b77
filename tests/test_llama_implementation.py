"""Chapter "The implementation in LLaMA" (rope_lib.teach.llama_implementation; both editions): its figures, listings'
captions and exercise checks in both languages; every rope_lib listing of the chapter is code the model runs; the figure
of the two pairing layouts draws rope_lib's permutation."""

import importlib
import inspect
import re
import sys

import numpy as np
import pytest
import torch
from matplotlib.text import Annotation

import rope_lib
import rope_lib.layouts
from glyphs import assert_chinese_figure, assert_english_figure, drawn_words, has_chinese, missing_glyphs
from paths import ROOT
from rope_lib.teach import llama_implementation
from rope_lib.teach.exercises import check_permute_rows, check_rope_half, check_rotate_qk
from rope_lib.teach.llama_implementation import PAIRING_ROWS
from rope_lib.teach.shared.figure_style import BookFigure
from rope_lib.teach.shared.language import word_count
from rope_lib.teach.shared.source_listing import SourceListing
from test_exercises import failed, permute_rows, rope_half, rotate_qk


# --- both languages: the figure, the source listings' captions, the checks --------------------------------------------

# ---- the figure ----


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_bf16_figure_draws_every_glyph(lang):
    assert missing_glyphs(llama_implementation.plot_bf16_angles(range(240, 273), lang=lang)) == []


def test_the_bf16_figure_in_chinese():
    fig = llama_implementation.plot_bf16_angles(range(240, 273), lang="zh")
    ax = fig.axes[0]
    assert ax.get_title() == "第 0 对的角度：float64 与 bfloat16"
    assert ax.get_xlabel() == "位置 m" and ax.get_ylabel() == "角度 m·θ_0（弧度）"
    assert has_chinese(fig.alt_text) and word_count(fig.alt_text) >= 20
    merged = 33 - len(torch.unique(rope_lib.teach.llama_implementation.bf16_angles(range(240, 273), 128)[:, 0]))
    assert f"33 个位置中有 {merged} 个" in fig.alt_text  # the same numbers as the English description


def test_the_bf16_figure_keeps_its_english_words():
    fig = llama_implementation.plot_bf16_angles(range(240, 273))
    ax = fig.axes[0]
    assert ax.get_title() == "Pair 0 angles: float64 vs bfloat16"
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("position m", "angle m·θ_0 (rad)")
    assert not has_chinese(fig.alt_text) and fig.alt_text.startswith("Line chart of the angle of pair 0")


# ---- the source listings' caption ----


def test_the_listing_caption_in_both_languages():
    from llama_models.llama3 import model as meta

    english, zh = SourceListing(meta.repeat_kv), SourceListing(meta.repeat_kv, lang="zh")
    assert english.caption.endswith("), read from the installed package")
    assert zh.caption.startswith("llama_models.llama3.model.repeat_kv（") and zh.caption.endswith("），读自已安装的包")
    assert english.caption[english.caption.index("(") + 1 : english.caption.index(")")] in zh.caption  # the same package and version
    assert str(zh).startswith(zh.caption) and "读自已安装的包" in zh._repr_html_()
    assert zh.lines == english.lines and zh.line_of("if n_rep == 1") == english.line_of("if n_rep == 1")


# ---- the checks ----

SUCCESS = {
    check_rope_half: (rope_half, "rope_half matches rope_lib.apply_rope(x, positions, layout='half') for four shapes, offsets 0, 50, "
                                 "1000 and 4093 and two seeded random ones.", "rope_half 与 rope_lib.apply_rope"),
    check_permute_rows: (permute_rows, "permute_rows reorders the rows of W_q and W_k so that the half layout scores exactly as the "
                                       "interleaved layout did, for three shapes and two seeded random ones.", "permute_rows 重排了"),
    check_rotate_qk: (rotate_qk, "rotate_qk keeps scores relative, decodes token by token as in one pass, tells position 257 from 256 "
                                 "in bfloat16 and matches RoPE in the interleaved layout for three shapes, from start_pos 37, 1000 and 4093, "
                                 "and two seeded random ones.",
                      "rotate_qk 的得分只依赖相对位置"),
}


@pytest.mark.parametrize("check", list(SUCCESS), ids=lambda c: c.__name__)
def test_the_success_message_in_both_languages(check):
    solution, english, zh = SUCCESS[check]
    assert check(solution).message == english
    result = check(solution, lang="zh")
    assert result and result.message.startswith(zh) and str(result).startswith("通过")


@pytest.mark.parametrize("check", list(SUCCESS), ids=lambda c: c.__name__)
def test_another_language_is_refused(check):
    with pytest.raises(ValueError, match="lang"):
        check(SUCCESS[check][0], lang="fr")


def test_the_figure_and_listing_refuse_another_language():
    with pytest.raises(ValueError, match="lang"):
        llama_implementation.plot_bf16_angles(range(250, 260), lang="fr")
    with pytest.raises(ValueError, match="lang"):
        SourceListing(test_the_figure_and_listing_refuse_another_language, lang="fr")


def apply(layout="interleaved", shift=0, sign=1):
    return lambda q, k, s: tuple(rope_lib.apply_rope(x, sign * torch.arange(s + shift, s + shift + q.shape[1]), layout=layout) for x in (q, k))


CHINESE_HINTS = [
    # (check, wrong answer, words of its Chinese hint, words of its English hint)
    (check_rope_half, lambda x, p: rope_lib.apply_rope(x, p, layout="interleaved"), ["配对错了", "交错布局", "半分布局"], ["pairing"]),
    (check_rope_half, lambda x, p: rope_half(x, p - p[0]), ["位置错了", "start_pos = 50"], ["positions", "start_pos = 50"]),
    (check_rope_half, lambda x, p: rope_half(x, p.to(torch.bfloat16).long()), ["bf16", "1001", "1000"], ["bf16", "1001"]),
    (check_rope_half, lambda x, p: rope_half(x, p).float(), ["dtype", "请保持 x 的 dtype"], ["keep x's dtype"]),
    (check_rope_half, lambda x, p: rope_half(x, p).numpy(), ["torch.Tensor", "应为形状为"], ["torch.Tensor"]),
    (check_permute_rows, lambda w, n: w, ["没有变化", "配对的坐标不同"], ["unchanged"]),
    (check_permute_rows, lambda w, n: permute_rows(w, 1), ["按头重排", "4 个头，每个 8 行"], ["per head", "4 heads of 8 rows"]),
    (check_permute_rows, lambda w, n: rope_lib.permute_rows_to_interleaved(w, n), ["方向反了", "逆置换"], ["direction"]),
    (check_permute_rows, lambda w, n: permute_rows(w.T, n).T, ["动的是列", "输入特征"], ["columns"]),
    (check_permute_rows, lambda w, n: permute_rows(w.T, n), ["行列弄反了", "转置"], ["transposed"]),
    (check_permute_rows, lambda w, n: permute_rows(w, n) * 2, ["数值"], ["other numbers"]),
    (check_permute_rows, lambda w, n: permute_rows(w, n).flatten().flip(0).view(w.shape), ["整行移动"], ["move whole rows"]),
    (check_rotate_qk, lambda q, k, s: rotate_qk(q, k, s, bug="bf16 positions"), ["位置 256 和 257 得到了相同的旋转"],
     ["positions 256 and 257 get the same rotation"]),
    (check_rotate_qk, lambda q, k, s: rotate_qk(q, k, s, bug="no start_pos"), ["第 t=1 步", "带缓存的解码与一次完整计算不一致"],
     ["cached decoding differs from one full pass at step t=1"]),
    (check_rotate_qk, lambda q, k, s: rotate_qk(q, k, s, bug="half-layout tables"), ["得分依赖绝对位置"],
     ["scores depend on the absolute position"]),
    (check_rotate_qk, apply(layout="half"), ["配对错了", "半分布局", "交错布局"], ["pairing"]),
    (check_rotate_qk, apply(shift=1), ["差了一位", "start_pos + 1"], ["off by one"]),
    (check_rotate_qk, apply(sign=-1), ["方向反了"], ["direction"]),
    (check_rotate_qk, lambda q, k, s: (q, k), ["什么都没转"], ["nothing turned"]),
    (check_rotate_qk, lambda q, k, s: rotate_qk(q, k, s)[0], ["应为一对结果"], ["expected a pair"]),
    (check_rotate_qk, lambda q, k, s: (rotate_qk(q, k, s)[0], rotate_qk(q, k, s)[1].double()), ["[1]", "请保持 xk 的 dtype"], ["xk's dtype"]),
]


@pytest.mark.parametrize("check, wrong, zh, en", CHINESE_HINTS, ids=[f"{c.__name__}-{i}" for i, (c, *_) in enumerate(CHINESE_HINTS)])
def test_each_hint_in_both_languages(check, wrong, zh, en):
    english = check(wrong)
    assert failed(english, *en) and not has_chinese(english.message)
    result = check(wrong, lang="zh")
    assert failed(result, *zh) and str(result).startswith("尚未通过")
    assert result.message != english.message


def test_a_missing_function_is_named_in_chinese():
    result = check_rotate_qk(None, lang="zh")
    assert not result and "None" in result.message and has_chinese(result.message)


def test_a_chinese_hint_names_the_call_in_chinese():
    """The call a hint names ("rope_half(x of shape …, positions …)") is Chinese too, in the Chinese edition."""
    import contextlib
    import io

    from rope_lib.teach.exercises import check_rope_half, check_rotate_qk

    for check, wrong in ((check_rope_half, lambda x, positions: x), (check_rotate_qk, lambda xq, xk, start_pos: (xq, xk))):
        with contextlib.redirect_stdout(io.StringIO()):
            chinese, english = check(wrong, lang="zh"), check(wrong)
        assert "形状为" in chinese.message or "其中" in chinese.message, chinese.message
        assert "of shape" not in chinese.message and "with " not in chinese.message, chinese.message
        assert "of shape" in english.message, english.message


# --- every rope_lib listing of the chapter is code the model runs -----------------------------------------------------

LISTING = re.compile(r"```\{literalinclude\} (?:\.\./)+(rope_lib/[\w/]+)\.py\n:pyobject: ([\w.]+)")
"""A literalinclude of a rope_lib object: its module's path and the object's dotted name."""


def listed(chapter):
    """The functions a chapter lists from rope_lib, by name, each unwrapped to the function that runs its body."""
    found = {}
    for path, name in LISTING.findall(chapter.read_text()):
        obj = importlib.import_module(path.replace("/", "."))
        for part in name.split("."):
            obj = getattr(obj, part)
        found[f"{path}.{name}"] = inspect.unwrap(obj)
    return found


def codes_run_by(work) -> set:
    """The code objects of every Python function called while work() runs."""
    seen = set()

    def profile(frame, event, arg):
        if event == "call":
            seen.add(frame.f_code)

    sys.setprofile(profile)
    try:
        work()
    finally:
        sys.setprofile(None)
    return seen


def a_model_at_work():
    """Build a tiny Llama from Hugging Face's weights in both layouts, then run forward and generate."""
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=48, num_hidden_layers=2, num_attention_heads=4,
                         num_key_value_heads=2, max_position_embeddings=32)
    hf = LlamaForCausalLM(config).eval()

    def work():
        for layout in ("half", "interleaved"):
            model = rope_lib.from_hf_state_dict(hf.state_dict(), config, layout=layout, device="cpu")
            tokens = torch.randint(0, 64, (1, 6))
            model(tokens, use_cache=False)
            model.generate(tokens, 4)

    return work


@pytest.fixture(scope="module")
def ran():
    pytest.importorskip("transformers")
    return codes_run_by(a_model_at_work())


@pytest.mark.parametrize("edition", ["book", "book/zh"])
def test_every_listed_rope_lib_function_runs_in_the_model(edition, ran):
    shown = listed(ROOT / edition / "llama_implementation.md")
    assert len(shown) >= 5, f"the chapter lists {sorted(shown)}"
    missing = sorted(name for name, function in shown.items() if function.__code__ not in ran)
    assert not missing, f"listed in {edition}/llama_implementation.md but not run by the model: {missing}"


def test_the_trace_sees_a_function_the_model_does_not_run(ran):
    """The planted case: Meta's complex form, kept in rope_lib to read beside Meta's, is not what the model runs."""
    assert inspect.unwrap(rope_lib.apply_rotary_emb).__code__ not in ran
    assert inspect.unwrap(rope_lib.rope.rotate_pairs).__code__ in ran


# --- the figure of the two pairing layouts draws rope_lib's permutation -----------------------------------------------

def drawn(fig):
    """What the figure draws, read from its artists: the joined pairs of each row as sorted tuples of slots (the ends
    of each bracket), and the arrows as {slot in the interleaved row: slot in the half row}."""
    (ax,) = fig.axes
    pairs = {layout: sorted(tuple(sorted(int(round(x)) for x in (line.get_xdata()[0], line.get_xdata()[-1])))
                            for line in ax.get_lines() if line.get_gid() == f"{layout} pair")
             for layout in PAIRING_ROWS}
    arrows = [a for a in ax.texts if isinstance(a, Annotation) and a.get_gid() == "permutation"]
    for a in arrows:  # every arrow runs from the interleaved row down to the half row
        assert a.xyann[1] > PAIRING_ROWS["half"] and a.xy[1] < PAIRING_ROWS["interleaved"]
    moves = {int(round(a.xyann[0])): int(round(a.xy[0])) for a in arrows}
    assert len(moves) == len(arrows)  # one arrow per coordinate
    return pairs, moves


def assert_draws_the_permutation(fig, d):
    """The pairs are (2j, 2j+1) on top and (j, j + d/2) below, and the arrows send i to its place in half_order."""
    pairs, moves = drawn(fig)
    half = d // 2
    assert pairs["interleaved"] == [(2 * j, 2 * j + 1) for j in range(half)]
    assert pairs["half"] == [(j, j + half) for j in range(half)]
    order = rope_lib.layouts.half_order(d)  # the half layout's slot p holds the interleaved coordinate order[p]
    assert moves == {int(i): p for p, i in enumerate(order)}
    assert moves == {i: int(p) for i, p in enumerate(rope_lib.layouts.interleaved_order(d))}


@pytest.mark.parametrize("d", [2, 4, 8, 16])
def test_the_figure_draws_rope_libs_pairs_and_permutation(d):
    fig = llama_implementation.plot_pairing_layouts(d)
    assert isinstance(fig, BookFigure) and len(fig.alt_text.split()) >= 25
    assert_draws_the_permutation(fig, d)
    (ax,) = fig.axes
    assert len([p for p in ax.patches if p.get_gid() == "interleaved box"]) == len([p for p in ax.patches if p.get_gid() == "half box"]) == d


def test_eight_coordinates_as_the_chapter_draws_them():
    fig = llama_implementation.plot_pairing_layouts(8)
    pairs, moves = drawn(fig)
    assert pairs["half"] == [(0, 4), (1, 5), (2, 6), (3, 7)]
    assert moves == {0: 0, 1: 4, 2: 1, 3: 5, 4: 2, 5: 6, 6: 3, 7: 7}
    assert "0→0, 1→4, 2→1, 3→5, 4→2, 5→6, 6→3, 7→7" in fig.alt_text and "pair 1 is (1, 5)" in fig.alt_text
    words = drawn_words(fig)
    assert "↓ permute_rows_to_half" in words and "↑ permute_rows_to_interleaved" in words


def test_each_pair_keeps_its_colour_across_the_layouts():
    fig = llama_implementation.plot_pairing_layouts(8)
    (ax,) = fig.axes
    colour = {layout: [p.get_edgecolor() for p in ax.patches if p.get_gid() == f"{layout} box"] for layout in PAIRING_ROWS}
    for i, p in enumerate(rope_lib.layouts.interleaved_order(8)):
        assert colour["interleaved"][i] == colour["half"][p]
    assert len({c for c in colour["interleaved"]}) == 4  # one colour per pair


def test_a_planted_wrong_permutation_shows_and_fails(monkeypatch):
    """Break rope_lib's permutation (pairs of the half layout taken as (2j, 2j+1) again, but in reverse): the figure,
    drawn from rope_lib, draws the wrong arrows and pairs, and the check above refuses them."""
    right = rope_lib.layouts.half_order
    monkeypatch.setattr(rope_lib.layouts, "half_order", lambda d: right(d)[::-1].copy())
    fig = llama_implementation.plot_pairing_layouts(8)
    _, moves = drawn(fig)
    assert moves == {i: 7 - p for i, p in enumerate(np.argsort(right(8)))}  # the figure follows rope_lib …
    monkeypatch.undo()
    with pytest.raises(AssertionError):
        assert_draws_the_permutation(fig, 8)  # … and the check sees it is not the half layout


def test_a_wrong_pairing_alone_fails_too(monkeypatch):
    """A permutation that keeps neighbours together (the identity) draws (2j, 2j+1) below as well: refused."""
    monkeypatch.setattr(rope_lib.layouts, "half_order", lambda d: np.arange(d))
    fig = llama_implementation.plot_pairing_layouts(8)
    monkeypatch.undo()
    with pytest.raises(AssertionError):
        assert_draws_the_permutation(fig, 8)


def test_both_languages_draw_every_glyph():
    english, chinese = llama_implementation.plot_pairing_layouts(8), llama_implementation.plot_pairing_layouts(8, lang="zh")
    assert_english_figure(english)
    assert_chinese_figure(chinese)
    assert drawn(english) == drawn(chinese)  # the same drawing, in other words
    assert "0→0, 1→4, 2→1" in chinese.alt_text and "permute_rows_to_half" in chinese.alt_text


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="d must be a positive even integer"):
        llama_implementation.plot_pairing_layouts(7)
    with pytest.raises(ValueError, match="d must be at most 16"):
        llama_implementation.plot_pairing_layouts(18)
    with pytest.raises(ValueError, match="lang"):
        llama_implementation.plot_pairing_layouts(8, lang="fr")
