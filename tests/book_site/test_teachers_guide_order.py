"""The teacher's guide follows the book: its table of decks lists every chapter in _toc.yml order with that chapter's
deck, its lectures take the chapters in that order, and its lab table lists every exercise check there is. Both
editions are read, the English book/teachers_guide.md and the Chinese book/zh/teachers_guide.md, each with its own
words for a lecture, an exit question, a quiz and its answers, and its own path to the decks."""

import re
from dataclasses import dataclass

import pytest

from paths import ROOT, chapters
from rope_lib.teach import exercises
from test_slides import tagged_slides


@dataclass(frozen=True)
class Edition:
    """One language's guide and the words its sections are found by."""

    lang: str
    path: str
    slides: str  # the link from the guide to its site's decks
    lecture: str  # the heading of lecture N, as a regular expression with one group for N
    first_paragraph_end: str  # what ends the list of a lecture's chapters, where a lecture also looks ahead
    exit_question: str
    quiz: str
    answer: str
    homework: str

    @property
    def guide(self) -> str:
        return (ROOT / self.path).read_text()

    @property
    def folder(self) -> str:
        """Where the edition's chapters are: "book" or "book/zh"."""
        return self.path.rsplit("/", 1)[0]

    def lecture_heading(self, number) -> str:
        return self.lecture.replace(r"(\d+)", str(number))


ENGLISH = Edition("en", "book/teachers_guide.md", "../_static/slides/", r"Lecture (\d+):", "look ahead",
                  "Exit question", "Quiz (answers inside)", "*Answer:*", "Homework")
CHINESE = Edition("zh", "book/zh/teachers_guide.md", "_static/slides/", r"第 (\d+) 讲：", "预告",
                  "课后提问", "小测验（内附答案）", "**答案**：", "课后作业")
EDITIONS = pytest.mark.parametrize("edition", [ENGLISH, CHINESE], ids=lambda e: e.lang)


def chapter_label(chapter: str) -> str:
    """A chapter's target, e.g. 'ch-rope-2d', the first `(ch-…)=` of its file."""
    return re.search(r"^\((ch-[\w-]+)\)=", (ROOT / f"{chapter}.md").read_text(), re.M).group(1)


def deck_rows(guide: str, edition: Edition = ENGLISH) -> list[tuple[str, str]]:
    """(chapter label, deck file) for each row of the table of decks."""
    return re.findall(rf"^\| \{{ref\}}`(ch-[\w-]+)` \| <a href=\"{re.escape(edition.slides)}([\w]+)\.slides\.html\">", guide, re.M)


def lecture_chapters(guide: str, edition: Edition = ENGLISH) -> list[str]:
    """The chapters each lecture names in its first paragraph ("Chapters {ref}`…` …"), lecture after lecture."""
    found = []
    for section in re.split(r"^## ", guide, flags=re.M):
        if re.match(edition.lecture, section):
            first_paragraph = section.split("\n\n")[1]
            found += re.findall(r"\{ref\}`(ch-[\w-]+)`", first_paragraph.split(edition.first_paragraph_end)[0])
    return found


@EDITIONS
def test_the_decks_follow_the_chapters_in_toc_order(edition):
    rows = deck_rows(edition.guide, edition)
    assert rows == [(chapter_label(chapter), chapter.split("/")[-1]) for chapter in chapters()]


DECK_NAME = {"en": r"Deck \*([^*]+)\*", "zh": r"幻灯片《([^》]+)》"}
"""How a lecture plan names a deck, in each edition."""
DECK_SLIDES = {"en": DECK_NAME["en"] + r", slides? (\d+)(?:–(\d+))?", "zh": DECK_NAME["zh"] + r"第 (\d+)(?:–(\d+))? 页"}
"""…and the slides of it a row uses: "Deck *RoPE in two dimensions*, slides 1–11"; "幻灯片《二维的 RoPE》第 1–11 页"."""
DERIVATION_DECKS = ("rope_2d", "rope_nd")
"""The derivation from two to d dimensions: one lecture presents both decks whole."""


def chapter_titles(edition: Edition) -> dict[str, str]:
    """The titles of the edition's chapters, which are their decks' titles (book/_ext/slides.py), math as plain text
    → the chapter's path without .md ("book/zh/rope_2d")."""
    paths = [f"{edition.folder}/{chapter.split('/')[-1]}" for chapter in chapters()]
    return {plain(re.search(r"^# (.+)$", (ROOT / f"{path}.md").read_text(), re.M).group(1)): path for path in paths}


def plain(title: str) -> str:
    """A title with its inline maths as plain text: "RoPE in $d$ dimensions" → "RoPE in d dimensions"."""
    return re.sub(r"\$([^$]*)\$", r"\1", title)


@EDITIONS
def test_the_lecture_plans_name_each_deck_by_its_title(edition):
    named = [plain(name) for name in re.findall(DECK_NAME[edition.lang], edition.guide)]
    assert len(named) >= 10 and not set(named) - set(chapter_titles(edition)), set(named) - set(chapter_titles(edition))


@EDITIONS
def test_the_lectures_take_the_chapters_in_toc_order(edition):
    order = [chapter_label(chapter) for chapter in chapters()]
    taught = lecture_chapters(edition.guide, edition)
    assert taught and [order.index(label) for label in taught] == sorted(order.index(label) for label in taught)


def test_both_editions_teach_the_same_chapters_in_the_same_lectures():
    assert lecture_chapters(CHINESE.guide, CHINESE) == lecture_chapters(ENGLISH.guide, ENGLISH)


@EDITIONS
def test_the_lab_lists_every_exercise_check(edition):
    checks = {name for name in exercises.__all__ if name.startswith("check_")}
    listed = set(re.findall(r"`(check_\w+)\(", edition.guide))
    assert listed == checks


@EDITIONS
def test_a_guide_out_of_order_is_caught(edition):
    """The same reading of the table, on a guide whose first two rows are swapped, does not match the toc."""
    guide = edition.guide
    rows = [line for line in guide.splitlines() if line.startswith("| {ref}`ch-")]
    swapped = guide.replace(rows[0], "\0").replace(rows[1], rows[0]).replace("\0", rows[1])
    assert deck_rows(swapped, edition) != [(chapter_label(chapter), chapter.split("/")[-1]) for chapter in chapters()]


def lecture_sections(guide: str, edition: Edition) -> dict[int, str]:
    """Lecture N → its section of the guide, heading to the next heading of its level."""
    return {int(m.group(1)): m.group(0) for m in re.finditer(rf"^## {edition.lecture}.*?(?=^## |\Z)", guide, re.M | re.S)}


def lecture_gaps(guide: str, edition: Edition = ENGLISH) -> list[str]:
    """What a lecture of the guide lacks: timings running 0 to 45 minutes without a gap, an exit question, a quiz
    of at least three questions each with its answer, and a row in the homework table."""
    sections = lecture_sections(guide, edition)
    homework = guide.split(f"\n## {edition.homework}", 1)[1].split("\n## ", 1)[0]
    set_for = set(re.findall(r"^\| (\d+) \|", homework, re.M))
    gaps = [] if list(sections) == list(range(1, len(sections) + 1)) else [f"lectures numbered {list(sections)}"]
    for number, body in sections.items():
        spans = [(int(a), int(b)) for a, b in re.findall(r"^\| (\d+)–(\d+) \|", body, re.M)]
        if not spans or spans[0][0] != 0 or spans[-1][1] != 45 or any(a[1] != b[0] for a, b in zip(spans, spans[1:])):
            gaps.append(f"lecture {number}: timings {spans} do not run from 0 to 45")
        if edition.exit_question not in body:
            gaps.append(f"lecture {number}: no exit question")
        quiz = body.split(edition.quiz, 1)[1] if edition.quiz in body else ""
        questions, answers = len(re.findall(r"^\d+\. ", quiz, re.M)), quiz.count(edition.answer)
        if questions < 3 or answers != questions:
            gaps.append(f"lecture {number}: a quiz of {questions} questions with {answers} answers")
        if str(number) not in set_for:
            gaps.append(f"lecture {number}: no homework")
    return gaps


@EDITIONS
def test_every_lecture_has_timings_an_exit_question_a_quiz_and_homework(edition):
    assert lecture_gaps(edition.guide, edition) == []


def test_both_editions_have_the_same_lectures():
    lectures = lambda edition: re.findall(rf"^## {edition.lecture}", edition.guide, re.M)
    assert lectures(CHINESE) == lectures(ENGLISH) and len(lectures(ENGLISH)) >= 1


@EDITIONS
def test_a_lecture_without_its_quiz_or_homework_is_caught(edition):
    guide = edition.guide
    last = max(int(n) for n in re.findall(rf"^## {edition.lecture}", guide, re.M))
    start = guide.index(f"## {edition.lecture_heading(last)}")
    quiz = guide.index(f"````{{admonition}} {edition.quiz}", start)
    without_quiz = guide[:quiz] + guide[guide.index("````\n", guide.index("\n", quiz) + 1) + 5 :]
    assert lecture_gaps(without_quiz, edition) == [f"lecture {last}: a quiz of 0 questions with 0 answers"]
    without_homework = re.sub(rf"^\| {last} \|.*\n", "", guide, flags=re.M)
    assert lecture_gaps(without_homework, edition) == [f"lecture {last}: no homework"]


@EDITIONS
def test_a_lecture_without_its_exit_question_is_caught(edition):
    guide = edition.guide
    first = guide.index(f"## {edition.lecture_heading(1)}")
    end = guide.index("\n## ", first + 1)
    without_exit = guide[:first] + guide[first:end].replace(edition.exit_question, "…") + guide[end:]
    assert lecture_gaps(without_exit, edition) == ["lecture 1: no exit question"]


@EDITIONS
def test_the_guide_points_to_its_own_editions_student_notebooks(edition):
    paths = re.findall(r"`(book/(?:zh/)?)<chapter>\.student\.ipynb`", edition.guide)
    assert paths and set(paths) == {f"{edition.folder}/"}


def lecture_slides(guide: str, edition: Edition) -> dict[int, list[tuple[str, int, int]]]:
    """Lecture N → the slides its rows use, as (chapter path without .md, first, last)."""
    titles = chapter_titles(edition)
    return {number: [(titles.get(plain(title), title), int(first), int(last or first))
                     for title, first, last in re.findall(DECK_SLIDES[edition.lang], body)]
            for number, body in lecture_sections(guide, edition).items()}


@EDITIONS
def test_every_lecture_names_the_slides_it_uses_and_they_exist(edition):
    lectures = lecture_slides(edition.guide, edition)
    for number, used in lectures.items():
        assert used, f"lecture {number} names no slides"
        for chapter, first, last in used:
            assert 1 <= first <= last <= tagged_slides(chapter), f"lecture {number}: {chapter} has {tagged_slides(chapter)} slides, not {first}–{last}"


@EDITIONS
def test_the_derivation_from_two_to_d_dimensions_is_one_lecture(edition):
    def covered(used, chapter):
        return set().union(set(), *[set(range(a, b + 1)) for deck, a, b in used if deck == chapter])

    whole = [number for number, used in lecture_slides(edition.guide, edition).items()
             if all(covered(used, f"{edition.folder}/{name}") == set(range(1, tagged_slides(f"{edition.folder}/{name}") + 1)) for name in DERIVATION_DECKS)]
    assert len(whole) == 1, f"lectures presenting every slide of {DERIVATION_DECKS}: {whole}"


@EDITIONS
def test_slides_a_deck_lacks_are_caught(edition):
    guide = edition.guide.replace("1–11", "1–99", 1)
    with pytest.raises(AssertionError):
        for number, used in lecture_slides(guide, edition).items():
            for chapter, first, last in used:
                assert last <= tagged_slides(chapter)
