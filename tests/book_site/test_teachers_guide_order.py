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
