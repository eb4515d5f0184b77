"""The chapter "The implementation in LLaMA" in both languages: its figure, its source listings' captions and its three
exercise checks speak Chinese with lang="zh", keep their English words by default, and refuse any other language."""

import pytest
import torch

import rope_lib
from glyphs import has_chinese, missing_glyphs
from rope_lib.teach import llama_implementation
from rope_lib.teach.exercises import check_permute_rows, check_rope_half, check_rotate_qk
from rope_lib.teach.shared.language import word_count
from rope_lib.teach.shared.source_listing import SourceListing
from test_exercises import failed, permute_rows, rope_half, rotate_qk


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
