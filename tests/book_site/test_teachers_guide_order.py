"""The teacher's guide follows the book: its table of decks lists every chapter in _toc.yml order with that chapter's
deck, its lectures take the chapters in that order, and its lab table lists every exercise check there is."""

import re

from paths import ROOT, chapters
from rope_lib.teach import exercises

GUIDE = ROOT / "book" / "teachers_guide.md"


def chapter_label(chapter: str) -> str:
    """A chapter's target, e.g. 'ch-rope-2d', the first `(ch-…)=` of its file."""
    return re.search(r"^\((ch-[\w-]+)\)=", (ROOT / f"{chapter}.md").read_text(), re.M).group(1)


def deck_rows(guide: str) -> list[tuple[str, str]]:
    """(chapter label, deck file) for each row of the table of decks."""
    return re.findall(r"^\| \{ref\}`(ch-[\w-]+)` \| <a href=\"\.\./_static/slides/([\w]+)\.slides\.html\">", guide, re.M)


def lecture_chapters(guide: str) -> list[str]:
    """The chapters each lecture names in its first paragraph ("Chapters {ref}`…` …"), lecture after lecture."""
    found = []
    for section in re.split(r"^## ", guide, flags=re.M):
        if section.startswith("Lecture"):
            first_paragraph = section.split("\n\n")[1]
            found += re.findall(r"\{ref\}`(ch-[\w-]+)`", first_paragraph.split("look ahead")[0])
    return found


def test_the_decks_follow_the_chapters_in_toc_order():
    rows = deck_rows(GUIDE.read_text())
    assert rows == [(chapter_label(chapter), chapter.split("/")[-1]) for chapter in chapters()]


def test_the_lectures_take_the_chapters_in_toc_order():
    order = [chapter_label(chapter) for chapter in chapters()]
    taught = lecture_chapters(GUIDE.read_text())
    assert taught and [order.index(label) for label in taught] == sorted(order.index(label) for label in taught)


def test_the_lab_lists_every_exercise_check():
    checks = {name for name in exercises.__all__ if name.startswith("check_")}
    listed = set(re.findall(r"`(check_\w+)\(", GUIDE.read_text()))
    assert listed == checks


def test_a_guide_out_of_order_is_caught():
    """The same reading of the table, on a guide whose first two rows are swapped, does not match the toc."""
    guide = GUIDE.read_text()
    rows = [line for line in guide.splitlines() if line.startswith("| {ref}`ch-")]
    swapped = guide.replace(rows[0], "\0").replace(rows[1], rows[0]).replace("\0", rows[1])
    assert deck_rows(swapped) != [(chapter_label(chapter), chapter.split("/")[-1]) for chapter in chapters()]


def lecture_gaps(guide: str) -> list[str]:
    """What a lecture of the guide lacks: timings running 0 to 45 minutes without a gap, an exit question, a quiz
    of at least three questions each with its answer, and a row in the homework table."""
    sections = {int(m.group(1)): m.group(0) for m in re.finditer(r"^## Lecture (\d+):.*?(?=^## |\Z)", guide, re.M | re.S)}
    homework = guide.split("\n## Homework", 1)[1].split("\n## ", 1)[0]
    set_for = set(re.findall(r"^\| (\d+) \|", homework, re.M))
    gaps = [] if list(sections) == list(range(1, len(sections) + 1)) else [f"lectures numbered {list(sections)}"]
    for number, body in sections.items():
        spans = [(int(a), int(b)) for a, b in re.findall(r"^\| (\d+)–(\d+) \|", body, re.M)]
        if not spans or spans[0][0] != 0 or spans[-1][1] != 45 or any(a[1] != b[0] for a, b in zip(spans, spans[1:])):
            gaps.append(f"lecture {number}: timings {spans} do not run from 0 to 45")
        if "Exit question" not in body:
            gaps.append(f"lecture {number}: no exit question")
        quiz = body.split("Quiz (answers inside)", 1)[1] if "Quiz (answers inside)" in body else ""
        questions, answers = len(re.findall(r"^\d+\. ", quiz, re.M)), quiz.count("*Answer:*")
        if questions < 3 or answers != questions:
            gaps.append(f"lecture {number}: a quiz of {questions} questions with {answers} answers")
        if str(number) not in set_for:
            gaps.append(f"lecture {number}: no homework")
    return gaps


def test_every_lecture_has_timings_an_exit_question_a_quiz_and_homework():
    assert lecture_gaps(GUIDE.read_text()) == []


def test_a_lecture_without_its_quiz_or_homework_is_caught():
    guide = GUIDE.read_text()
    last = max(int(n) for n in re.findall(r"^## Lecture (\d+):", guide, re.M))
    start = guide.index(f"## Lecture {last}:")
    quiz = guide.index("````{admonition} Quiz", start)
    without_quiz = guide[:quiz] + guide[guide.index("````\n", guide.index("\n", quiz) + 1) + 5 :]
    assert lecture_gaps(without_quiz) == [f"lecture {last}: a quiz of 0 questions with 0 answers"]
    without_homework = re.sub(rf"^\| {last} \|.*\n", "", guide, flags=re.M)
    assert lecture_gaps(without_homework) == [f"lecture {last}: no homework"]
