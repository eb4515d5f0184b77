"""Every exercise check answers with a verdict, whatever the student's function does, in the chapter's language; it
catches a wrong answer on every call, not on most; and its hint never gives the right answer away.

Each wrong answer here is one a student writes, or one the checks once let through or choked on: an answer right on the
first inputs and wrong on a random one (the LLaMA checks raised AttributeError), positions held in float16, stopping
Euler's series when the next term is below tol, the wrong pairing layout, an exit, an endless loop, an input changed in
place. Every test runs in both languages.
"""

import math
import re
import signal
import sys
import threading
import time

import numpy as np
import pytest
import torch

import rope_lib
from paths import ROOT, chapters, chinese_chapters
from rope_lib.teach import exercises
from rope_lib.teach.exercises import (
    CheckResult,
    check_axial_rotate,
    check_b_m,
    check_offset_weight,
    check_permute_rows,
    check_rope_half,
    check_rope_pairs,
    check_rotate_cache,
    check_rotate_qk,
    check_score_complex,
    check_terms_needed,
)
from rope_lib.teach.shared import checking
from rope_lib.teach.shared.checking import NOT_YET
from test_exercises import (
    REFERENCES,
    axial_rotate,
    b_m,
    input_key,
    offset_weight,
    permute_rows,
    rope_half,
    rope_pairs,
    rotate_cache,
    rotate_qk,
    score_complex,
    student_notebooks,
    terms_needed,
)

LANGUAGES = ["en", "zh"]


def not_yet(result: CheckResult, lang: str, en: list[str], zh: list[str]) -> bool:
    """The check gave NOT YET, in `lang`, with a hint that holds every one of that language's words."""
    words = en if lang == "en" else zh
    return (isinstance(result, CheckResult) and not result and str(result).startswith(NOT_YET.in_language(lang))
            and all(w in result.message for w in words))


def inputs_tried(check, solution) -> list:
    """The inputs, in order, that one run of `check` gives the right answer `solution`."""
    seen = []

    def recorder(*args, **kwargs):
        seen.append((args, kwargs))
        return solution(*args, **kwargs)

    assert check(recorder)
    return seen


# ---- an answer right on the first inputs and wrong on a random one: a hint, not AttributeError ----

FIRST_INPUTS = {
    # (check, the right answer, the wrong one, the input shapes the check tried first before the fix, the hint's words)
    "check_rope_half": (check_rope_half, rope_half, lambda x, p: rope_lib.apply_rope(x, p, layout="interleaved"),
                        {(2, 9, 3, 32), (1, 4, 2, 8), (1, 5, 1, 16)}, ["pairing", "half layout"], ["配对错了", "半分布局"]),
    "check_permute_rows": (check_permute_rows, permute_rows, lambda w, n_heads: w,
                           {(32, 12), (32, 32), (12, 5)}, ["unchanged"], ["没有变化"]),
    "check_rotate_qk": (check_rotate_qk, rotate_qk,
                        lambda q, k, s: tuple(rope_lib.apply_rope(x, torch.arange(s, s + q.shape[1]), layout="half") for x in (q, k)),
                        {(1, 6, 2, 16), (1, 8, 2, 16), (1, 1, 2, 16), (1, 2, 1, 32), (2, 5, 3, 16), (1, 3, 2, 8)},
                        ["pairing", "half layout"], ["配对错了", "半分布局"]),
}


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("name", list(FIRST_INPUTS))
def test_an_answer_wrong_past_the_first_inputs_gets_a_hint(name, lang):
    check, right, wrong, first_shapes, en, zh = FIRST_INPUTS[name]

    def answer(first, *rest):
        return (right if tuple(first.shape) in first_shapes else wrong)(first, *rest)

    result = check(answer, lang=lang)
    assert not_yet(result, lang, en, zh), result


# ---- positions held in float16: whole numbers past 2048 round, and the checks start a case past it ----


def rope_half_float16(x, positions):
    return rope_half(x, positions.to(torch.float16).long())


FLOAT16 = {
    "check_rope_half": (check_rope_half, rope_half_float16, ["positions", "float16", "4093 became 4092", "2048", "float64"],
                        ["位置错了", "float16", "位置 4093 变成了 4092", "2048", "float64"]),
    "check_rotate_qk": (check_rotate_qk, lambda q, k, s: rotate_qk(q, k, s, bug="float16 positions"),
                        ["positions", "float16", "4093 became 4092", "2048"], ["位置错了", "float16", "位置 4093 变成了 4092", "2048"]),
}


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("name", list(FLOAT16))
def test_float16_positions_fail_every_time(name, lang):
    check, wrong, en, zh = FLOAT16[name]
    for _ in range(5):
        result = check(wrong, lang=lang)
        assert not_yet(result, lang, en, zh), result


# ---- Euler's series: stopping when the next term is below tol is one term late on a few inputs ----


def next_term_rule(x, tol):
    """The smallest N whose next term |x|^(N+1)/(N+1)! is below tol: a natural stopping rule, and the wrong one."""
    n = 0
    while abs(x) ** (n + 1) / math.factorial(n + 1) >= tol:
        n += 1
    return n


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_next_term_stopping_rule_fails_every_time(lang):
    for _ in range(5):
        result = check_terms_needed(next_term_rule, lang=lang)
        assert not_yet(result, lang, ["not the smallest", "next term", "error of S_N itself"], ["不是最小的", "下一项", "S_N 本身的误差"]), result
        x, tol = (float(v) for v in re.search(r"terms_needed\(([\d.]+), ([\de.-]+)\)", result.message).groups())
        assert next_term_rule(x, tol) == terms_needed(x, tol) + 1, "the hint names an input where the two rules differ"


# ---- the wrong pairing layout: caught on every input where it gives another answer ----

HALF_AND_INTERLEAVED = {
    # (check, the right answer, the same with the other layout, the hint's words when the layout is the only slip)
    "check_rope_pairs": (check_rope_pairs, rope_pairs, lambda x, m, base=10000.0: rope_lib.rotation.rotary_matrix(m, len(x), base, layout="half") @ x,
                         ["pairing"], ["配对"]),
    "check_rope_half": (check_rope_half, rope_half, lambda x, p: rope_lib.apply_rope(x, p, layout="interleaved"), ["pairing"], ["配对错了"]),
    "check_rotate_cache": (check_rotate_cache, rotate_cache,
                           lambda k, s, f: rope_lib.apply_rope(k, torch.arange(s, s + k.shape[1]), inv_freq=f, layout="half"),
                           ["pairing"], ["配对"]),
    "check_axial_rotate": (check_axial_rotate, axial_rotate,
                           lambda x, h, w: rope_lib.multi_axis.apply_multi_axis_rope(torch.from_numpy(x)[None, None, None], [[h, w]],
                                                                          rope_lib.axial.axial_inv_freq_2d(len(x), 100.0), layout="half")[0, 0, 0].numpy(),
                           ["pairing"], ["配对"]),
    # rotate_qk's first calls test properties (relative scores, decoding, bf16), so a slip there gets that property's hint
    "check_rotate_qk": (check_rotate_qk, rotate_qk,
                        lambda q, k, s: tuple(rope_lib.apply_rope(x.double(), torch.arange(s, s + q.shape[1]), layout="half").to(x.dtype)
                                              for x in (q, k)),
                        [], []),
}


def differs(a, b) -> bool:
    """Two answers (arrays, tensors of any float dtype, or pairs of them) are not the same numbers."""
    if isinstance(a, tuple):
        return any(differs(x, y) for x, y in zip(a, b))
    a, b = (torch.as_tensor(v).double() for v in (a, b))
    return not torch.allclose(a, b, rtol=0, atol=1e-6)


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("name", list(HALF_AND_INTERLEAVED))
def test_the_wrong_layout_on_any_one_input_is_caught(name, lang):
    """For each input the check tries: an answer right everywhere but there, where it pairs the other way."""
    check, right, other_layout, en, zh = HALF_AND_INTERLEAVED[name]
    slips = 0
    for args, kwargs in inputs_tried(check, right):
        if not differs(right(*args, **kwargs), other_layout(*args, **kwargs)):
            continue  # at position 0, or with one pair, both layouts agree
        there = input_key(args, kwargs)

        def answer(*a, **k):
            return (other_layout if input_key(a, k) == there else right)(*a, **k)

        result = check(answer, lang=lang)
        assert not_yet(result, lang, en, zh), result
        slips += 1
    assert slips >= 4


# ---- the right answer never shows, not even as the gap from the student's number ----


NUMBER_CHECKS = {
    "check_offset_weight": (check_offset_weight, offset_weight),
    "check_b_m": (check_b_m, b_m),
    "check_score_complex": (check_score_complex, score_complex),
}
OFF_BY = 0.0371
"""How far the wrong answers below are from the right ones: an odd number, so that it cannot appear by chance."""


def written(value: float, formats=(".6g", ".4g")) -> list[str]:
    """Ways a hint might print a number, those of at least three digits (a 4 or a 0.5 may be anything)."""
    return [f"{value:{f}}" for f in formats if len(f"{abs(value):{f}}".replace(".", "")) >= 3]


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("name", list(NUMBER_CHECKS))
def test_a_hint_never_shows_the_right_number(name, lang, capsys):
    check, right = NUMBER_CHECKS[name]
    answers = [right(*args, **kwargs) for args, kwargs in inputs_tried(check, right)]
    capsys.readouterr()
    result = check(lambda *a, **k: right(*a, **k) + OFF_BY, lang=lang)
    printed = capsys.readouterr().out
    assert not_yet(result, lang, [], []) and result.message in printed
    shown = [text for text in [t for value in answers for t in written(float(value))] + written(OFF_BY, (".3g", ".2g"))
             if re.search(rf"(?<![\d.]){re.escape(text)}(?![\d])", printed)]
    assert not shown, (shown, printed)


# ---- a wrong type, shape or dtype ----

WRONG_FORMS = [
    # (check, answer, words of the English hint, of the Chinese one)
    (check_rope_half, lambda x, p: rope_half(x, p).numpy(), ["returned ndarray", "torch.Tensor"], ["返回了 ndarray", "torch.Tensor"]),
    (check_rope_half, lambda x, p: rope_half(x, p)[:, 1:], ["returned shape (2, 8, 3, 32)"], ["返回的形状是 (2, 8, 3, 32)"]),
    (check_rope_half, lambda x, p: rope_half(x, p).float(), ["dtype torch.float32", "keep x's dtype"], ["dtype 是 torch.float32", "请保持 x 的 dtype"]),
    (check_rope_pairs, lambda x, m, base=10000.0: str(rope_pairs(x, m, base)), ["returned str", "could not be read"], ["返回了 str", "无法读作"]),
    (check_terms_needed, lambda x, tol: str(terms_needed(x, tol)), ["expected a whole number"], ["应为一个整数"]),
    (check_b_m, lambda m, d, base: [b_m(m, d, base)], ["returned shape (1,)"], ["返回的形状是 (1,)"]),
    (check_rotate_qk, lambda q, k, s: rotate_qk(q, k, s)[0], ["expected a pair"], ["应为一对结果"]),
]


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("check, answer, en, zh", WRONG_FORMS, ids=[f"{c.__name__}-{i}" for i, (c, *_) in enumerate(WRONG_FORMS)])
def test_a_wrong_type_shape_or_dtype_is_not_yet(check, answer, en, zh, lang):
    assert not_yet(check(answer, lang=lang), lang, en, zh)


# ---- an exit, a BaseException, an input changed in place, an endless loop ----


def exits(*args, **kwargs):
    sys.exit("done")


class Stop(BaseException):
    """Not an Exception: `except Exception` lets it through."""


def raises_base_exception(*args, **kwargs):
    raise Stop("halt")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_an_exit_is_not_yet(lang):
    for answer, en, zh in [(exits, ["sys.exit()", "SystemExit: done", "with return"], ["调用了 sys.exit()", "SystemExit: done", "用 return 交回答案"]),
                           (lambda *a: sys.exit(), ["sys.exit()", "(SystemExit)"], ["调用了 sys.exit()", "（SystemExit）"]),
                           (lambda *a: exit(3), ["sys.exit()", "SystemExit: 3"], ["SystemExit: 3"])]:
        assert not_yet(check_rope_pairs(answer, lang=lang), lang, en, zh)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_any_exception_is_not_yet(lang):
    assert not_yet(check_rope_pairs(raises_base_exception, lang=lang), lang, ["raised Stop: halt"], ["抛出了 Stop: halt"])
    assert not_yet(check_rope_half(lambda x, p: 1 / 0, lang=lang), lang, ["raised ZeroDivisionError"], ["抛出了 ZeroDivisionError"])


def test_keyboard_interrupt_stops_the_check():
    """The student interrupting the kernel is the one thing a check lets through."""
    def interrupted(*args):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        check_rope_pairs(interrupted)


def rope_pairs_in_place(x, m, base=10000.0):
    x[:] = rope_pairs(x.copy(), m, base)
    return x


def rope_half_in_place(x, positions):
    return x.copy_(rope_half(x.clone(), positions))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_an_answer_that_changes_its_input_is_not_yet(lang):
    """Right values, but the caller's vector is overwritten: named, with the argument's name from the student's def."""
    assert not_yet(check_rope_pairs(rope_pairs_in_place, lang=lang), lang, ["changed its argument x in place", "x.copy()"],
                   ["原地修改了参数 x", "x.copy()"])
    assert not_yet(check_rope_half(rope_half_in_place, lang=lang), lang, ["changed its argument x in place", "x.clone()"],
                   ["原地修改了参数 x", "x.clone()"])
    assert not_yet(check_permute_rows(lambda w, n_heads: w.copy_(permute_rows(w.clone(), n_heads)), lang=lang), lang,
                   ["changed its argument w in place"], ["原地修改了参数 w"])


def test_the_checks_own_inputs_survive_an_answer_that_changes_them():
    """A check's inputs are its own: a first answer that scribbles on them cannot spoil the next call."""
    assert not check_rope_pairs(lambda x, m, base=10000.0: x.fill(0.0))
    assert check_rope_pairs(rope_pairs)


def loops(*args, **kwargs):
    while True:
        pass


def sleeps(*args, **kwargs):
    time.sleep(60)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_an_endless_loop_is_stopped_at_the_time_limit(lang, monkeypatch):
    monkeypatch.setattr(checking, "TIME_LIMIT_S", 0.2)
    for answer in (loops, sleeps):
        start = time.monotonic()
        result = check_terms_needed(answer, lang=lang)
        assert not_yet(result, lang, ["did not return within 0.2 s", "loop"], ["在 0.2 秒内没有返回", "循环"]), result
        assert time.monotonic() - start < 5


def test_the_time_limit_gives_back_the_callers_alarm(monkeypatch):
    """A timer and SIGALRM handler set before the check are there after it, the timer less the time the check took."""
    monkeypatch.setattr(checking, "TIME_LIMIT_S", 0.2)
    rang = []

    def ring(signum, frame):
        rang.append(signum)

    previous = signal.signal(signal.SIGALRM, ring)
    try:
        signal.setitimer(signal.ITIMER_REAL, 30.0)
        assert not check_terms_needed(loops)
        left, _ = signal.getitimer(signal.ITIMER_REAL)
        assert 25.0 < left < 30.0 and signal.getsignal(signal.SIGALRM) is ring
        signal.setitimer(signal.ITIMER_REAL, 0.05)
        time.sleep(0.2)
        assert rang == [signal.SIGALRM]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_a_check_outside_the_main_thread_runs_without_a_limit():
    """SIGALRM reaches the main thread only: elsewhere a check still gives its verdict, with no time limit."""
    results = []
    thread = threading.Thread(target=lambda: results.extend([check_rope_pairs(rope_pairs), check_rope_pairs(exits)]))
    thread.start()
    thread.join()
    assert results[0] and not_yet(results[1], "en", ["sys.exit()"], [])


# ---- every check of every chapter, in the chapter's language ----


def chapter_checks() -> list[tuple[str, str, str]]:
    """(chapter, check name, language) for every auto-check an exercise of either edition names."""
    found = []
    for chapter in chapters() + chinese_chapters():
        source = (ROOT / f"{chapter}.md").read_text()
        for exercise in student_notebooks.exercises_of(source):
            found += [(chapter, f"check_{name}", student_notebooks.language_of(source)) for name in exercise.checked]
    return found


CHAPTER_CHECKS = chapter_checks()


def test_every_check_is_found_in_both_editions():
    names = {check.__name__ for check, _ in REFERENCES}
    assert {(name, lang) for _, name, lang in CHAPTER_CHECKS} == {(name, lang) for name in names for lang in LANGUAGES}


BROKEN_ANSWERS = {
    "raises": (lambda *a, **k: [][0], ["raised IndexError"], ["抛出了 IndexError"]),
    "exits": (exits, ["called sys.exit()"], ["调用了 sys.exit()"]),
    "returns-None": (lambda *a, **k: None, ["returned None"], ["返回了 None"]),
}


@pytest.mark.parametrize("answer", list(BROKEN_ANSWERS))
@pytest.mark.parametrize("chapter, name, lang", CHAPTER_CHECKS, ids=[f"{c}:{n}" for c, n, _ in CHAPTER_CHECKS])
def test_every_check_answers_a_broken_function(chapter, name, lang, answer):
    function, en, zh = BROKEN_ANSWERS[answer]
    result = getattr(exercises, name)(function, lang=lang)
    assert not_yet(result, lang, en, zh), result


# ---- the same verdict on every call ----


@pytest.mark.parametrize("check, solution", REFERENCES, ids=[c.__name__ for c, _ in REFERENCES])
def test_an_answer_wrong_at_the_last_input_fails_there_on_every_call(check, solution):
    """The last input a check tries is a random one for most checks: drawn from a fixed seed, it is the same on every
    call, so an answer wrong only there fails, and with the same hint, each time."""
    last = input_key(*inputs_tried(check, solution)[-1])

    def answer(*args, **kwargs):
        return None if input_key(args, kwargs) == last else solution(*args, **kwargs)

    verdicts = {str(check(answer)) for _ in range(3)}
    assert len(verdicts) == 1 and "returned None" in verdicts.pop()
