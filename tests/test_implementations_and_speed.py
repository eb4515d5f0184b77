"""Appendix "Implementations and speed" (rope_lib.teach.implementations_and_speed; both editions): what the chapter
reads of a `make bench` report, and nothing else; its figure and check in both languages."""

import json
import re

import pytest
import torch

from glyphs import has_chinese, missing_glyphs
from paths import ROOT
from rope_lib.teach.exercises import check_bf16_position_error
from rope_lib.teach.implementations_and_speed import RECORD_KEYS, cuda_report_markdown, load_report, lookup, plot_speed, seq_lens
from test_exercises import bf16_position_error


# --- what the chapter reads of a `make bench` report, and nothing else ------------------------------------------------

def report():
    records = [
        {"impl": impl, "layout": layout, "device": "cpu", "dtype": "fp32", "seq_len": s, "ms": ms, "gbps": 1.0, "ratio_to_copy": 1.0 / ms}
        for s in (2048, 512)
        for impl, layout, ms in [("copy", "any", 1.0), ("rope_lib_fused", "half", 1.25)]
    ]
    return {"machine": {"cpu": "Test CPU"}, "results": records}


def test_lookup_finds_exactly_one_record():
    assert lookup(report(), "rope_lib_fused", "half", "fp32", 2048)["ms"] == 1.25
    with pytest.raises(KeyError, match="expected one record of hf"):
        lookup(report(), "hf", "half", "fp32", 2048)


def test_seq_lens_are_the_lengths_timed_shortest_first():
    assert seq_lens(report()) == [512, 2048]


def test_load_report_reads_a_report_and_checks_its_records(tmp_path):
    path = tmp_path / "bench_cpu.json"
    path.write_text(json.dumps(report()))
    assert load_report(path) == report()
    broken = report()
    broken["results"][0] = {key: broken["results"][0][key] for key in RECORD_KEYS[:-1]}
    path.write_text(json.dumps(broken))
    with pytest.raises(ValueError, match=r"a record must have the fields"):
        load_report(path)
    with pytest.raises(FileNotFoundError, match=r"path must name a report written by `make bench`"):
        load_report(tmp_path / "bench_cuda.json")


@pytest.mark.parametrize("lang, words", [("en", "No CUDA report is committed"), ("zh", "尚未提交 CUDA 的测量报告")])
def test_without_a_cuda_report_the_appendix_says_so_and_how_to_make_one(tmp_path, lang, words):
    said = cuda_report_markdown(tmp_path / "bench_cuda.json", lang=lang)
    assert said.startswith(words) and "`make gpu-check`" in said and "|" not in said


def test_a_cuda_report_is_shown_as_its_tables(tmp_path):
    cuda = report()
    for record in cuda["results"]:
        record["device"] = "cuda"
    cuda |= {"machine": {"gpu": "Test GPU"}, "date": "2027-01-02T03:04:05+00:00", "command": "make gpu-check", "decode": [
        {"size": "80M", "dtype": "bfloat16", "hf_tokens_per_s": 100.0, "hf_compiled_tokens_per_s": 300.0,
         "rope_lib_tokens_per_s": 150.0, "rope_lib_compiled_tokens_per_s": 320.0, "identical_tokens": True}]}
    (tmp_path / "bench_cuda.json").write_text(json.dumps(cuda))
    shown = cuda_report_markdown(tmp_path / "bench_cuda.json").splitlines()
    assert shown[0].startswith("Measured on Test GPU, 2027-01-02")
    assert "| fp32 | S = 512 | S = 2048 |" in shown
    assert "| rope_lib_fused (half) | 0.80 | 0.80 |" in shown  # a copy's time over the implementation's
    assert "| 80M (bfloat16) | 100 | 300 | 150 | 320 | True |" in shown
    assert not any(line.startswith("| copy") for line in shown)  # the yardstick is the unit, not a row


# --- both languages: the figure and the check -------------------------------------------------------------------------

REPORT = load_report(ROOT / "book" / "data" / "bench_cpu.json")


def test_the_speed_figure_in_chinese():
    fig = plot_speed(REPORT, lang="zh")
    assert has_chinese(fig.alt_text) and "复制" in fig.alt_text
    assert all(has_chinese(ax.get_xlabel()) for ax in fig.axes) and has_chinese(fig.axes[0].get_ylabel())
    assert any("半分布局" in t.get_text() for legend in fig.legends for t in legend.get_texts())
    assert missing_glyphs(fig) == []


def test_the_speed_figure_keeps_its_english():
    fig = plot_speed(REPORT)
    assert not has_chinese(fig.alt_text) and fig.axes[0].get_xlabel() == "sequence length S"
    assert fig.axes[0].get_ylabel() == "copy time / time (1 = copy speed)"
    assert missing_glyphs(fig) == []


def test_the_bf16_check_speaks_chinese():
    passed = check_bf16_position_error(bf16_position_error, lang="zh")
    assert passed and passed.message.startswith("bf16_position_error 与 bf16 的 torch.arange 一致") and "通过" in str(passed)
    nearest = lambda n: (torch.arange(n).to(torch.bfloat16).double() - torch.arange(n)).abs().max().item()  # noqa: E731
    hints = {
        "nearest": (nearest, ["舍入", "最近的 bf16 数", "两者第一次不同是在位置"]),
        "last": (lambda n: (torch.arange(n, dtype=torch.bfloat16).double() - torch.arange(n)).abs()[-1].item(), ["最后一个位置"]),
        "range": (lambda n: bf16_position_error(n + 1), ["范围", "0 … n−1"]),
        "signed": (lambda n: (torch.arange(n, dtype=torch.bfloat16).double() - torch.arange(n)).max().item(), ["距离", "绝对值"]),
        "float16": (lambda n: (torch.arange(n, dtype=torch.float16).double() - torch.arange(n)).abs().max().item(), ["float16", "11 位有效数字"]),
        "exact": (lambda n: 0, ["看起来是精确的", "256"]),
        "each": (lambda n: (torch.arange(n, dtype=torch.bfloat16).double() - torch.arange(n)).abs(), ["每个位置一个误差"]),
        "other": (lambda n: 3.5, ["最大距离不是 3.5"]),
    }
    for name, (answer, words) in hints.items():
        result = check_bf16_position_error(answer, lang="zh")
        assert not result and all(w in result.message for w in words), (name, result.message)
        assert "尚未通过" in str(result)
        english = check_bf16_position_error(answer)
        assert not english and not has_chinese(english.message), (name, english.message)


def test_the_bf16_check_keeps_its_english():
    assert check_bf16_position_error(bf16_position_error).message == (
        "bf16_position_error matches a bf16 torch.arange for n from 1 to 8192 and for three seeded random n up to 20000.")


@pytest.mark.parametrize("call", [lambda: plot_speed(REPORT, lang="fr"), lambda: check_bf16_position_error(bf16_position_error, lang="fr")],
                         ids=["plot_speed", "check_bf16_position_error"])
def test_an_unknown_language_is_refused(call):
    with pytest.raises(ValueError, match="lang"):
        call()


@pytest.mark.parametrize(("edition", "title"), [("book", "Hint"), ("book/zh", "提示")])
def test_every_exercise_has_a_hint(edition, title):
    """Each of the appendix's three exercises, in both editions, holds a hint the reader opens (a dropdown)."""
    page = (ROOT / edition / "implementations_and_speed.md").read_text()
    exercises = dict(re.findall(r"^:::\{exercise\}\n:label: (\S+)\n(.*?)^:::$", page, re.S | re.M))
    assert sorted(exercises) == ["speed-ex-budget", "speed-ex-gqa", "speed-ex-positions"]
    hint = f"```{{admonition}} {title}\n:class: dropdown\n"
    assert [label for label, body in exercises.items() if hint not in body] == []
