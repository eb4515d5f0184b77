"""The book as PDFs (`make pdf`; book/_ext/book_pdf.py lays them out): the student's and the teacher's, from one LaTeX
file. XeLaTeX ends without an error and without a missing glyph, no reference is left unresolved, the chapters of
_toc.yml are the PDF's chapters, in order and numbered as on the website (the student's without the teacher's guide),
and so are its equations; hidden inputs print their outputs only; the student's PDF has no solution and no page of the
teacher's guide, the teacher's has both. A few pages are rendered to PNG under _build/pdf_pages/ to look at."""

from __future__ import annotations

import html as html_text
import re
import subprocess
import sys
from pathlib import Path

import pytest

from paths import ROOT, chapters, pages, pdf_name, teacher_pdf_name

sys.path.insert(0, str(ROOT / "book" / "_ext"))
import student_notebooks  # noqa: E402

pytestmark = pytest.mark.slow

PAGES_TO_LOOK_AT = ROOT / "_build" / "pdf_pages"
HIDING_TAGS = {"hide-input", "hide-cell"}
"""Cells whose code the website shows only when the reader opens it, and the PDF never."""
REMOVING_TAGS = {"remove-input", "remove-cell"}
CODE_LINE_LENGTHS = range(12, 71)
"""Code lines that can be looked for in the PDF's text: long enough to be distinctive, short enough not to wrap."""


def stem(teacher: bool = False) -> str:
    """The LaTeX document's name, without its suffix: its .tex, .log, .aux, .toc and .pdf share it."""
    return Path(teacher_pdf_name() if teacher else pdf_name()).stem


GUIDE = "book/teachers_guide"
GUIDE_LINES = ("Lecture 1: why attention needs positions", "Lab session: the coding exercises")
"""Headings of the teacher's guide that its pages print and no other page does."""


@pytest.fixture(scope="module")
def latex(built_pdf) -> Path:
    result, folder = built_pdf
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-6000:]
    return folder


def pdf_text(latex: Path, teacher: bool = False) -> str:
    """A PDF's text as pdftotext reads it (poppler-utils, tests/install_tex.sh)."""
    pdf = latex / f"{stem(teacher)}.pdf"
    return subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout


@pytest.fixture(scope="module")
def text(latex) -> str:
    """The student's PDF's text."""
    return pdf_text(latex)


@pytest.fixture(scope="module")
def teacher_text(latex) -> str:
    return pdf_text(latex, teacher=True)


def text_lines(text: str) -> set[str]:
    return {line.strip() for line in text.splitlines()}


@pytest.mark.parametrize("teacher", [False, True], ids=["student", "teacher"])
def test_xelatex_reports_no_error_no_missing_character_and_no_undefined_reference(latex, teacher):
    log = (latex / f"{stem(teacher)}.log").read_text(errors="replace")
    assert "Output written on" in log
    assert not [line for line in log.splitlines() if line.startswith("!")]
    assert not [line for line in log.splitlines() if "Missing character" in line]
    assert "There were undefined references" not in log and "undefined on input line" not in log


def test_no_reference_is_left_unresolved(text, teacher_text):
    assert "??" not in text and "??" not in teacher_text


def test_the_student_s_pdf_has_no_solution_and_no_guide_the_teacher_s_has_both(latex, text, teacher_text):
    """The student's PDF is the one to hand out: every exercise, no solution, no page of the teacher's guide, whose
    chapter is not in its contents either; the teacher's PDF is the same book with the solutions and the guide."""
    student_chapters, teacher_chapters = (" | ".join(t for _, t in pdf_chapters(latex, teacher)) for teacher in (False, True))
    assert "teacher s guide" not in student_chapters and "teacher s guide" in teacher_chapters
    assert not [line for line in GUIDE_LINES if line in text]
    assert all(line in teacher_text for line in GUIDE_LINES)
    assert "Solution to" not in text
    assert len(re.findall(r"Solution to Exercise \d+\.\d+", teacher_text)) >= len(re.findall(r"^\s*Exercise (\d+\.\d+)", text, re.M))
    assert len(teacher_text) > len(text) * 1.05


def normalised(title: str) -> str:
    """A heading's words alone, lower case: LaTeX's markup (\\sphinxhyphen{}, \\(d\\)) and HTML's (tags, entities) gone."""
    title = re.sub(r"\\[a-zA-Z]+", " ", re.sub(r"<[^>]+>", " ", html_text.unescape(title)))
    return " ".join(re.findall(r"\w+", title.replace("\\sphinxhyphen{}", "-"))).lower()


def pdf_chapters(latex: Path, teacher: bool = False) -> list[tuple[str | None, str]]:
    """The chapter headings LaTeX set, in order, from its table of contents: (number or None, title)."""
    toc = (latex / f"{stem(teacher)}.toc").read_text()
    found = []
    for entry in re.findall(r"^\\contentsline \{chapter\}\{(.*)\}\{[^{}]*\}\{[^{}]*\}%$", toc, re.M):
        number = re.match(r"\\numberline \{(\d+)\}", entry)
        found.append((number.group(1) if number else None, normalised(entry[number.end():] if number else entry)))
    return found


def site_chapter(html: Path, page: str) -> tuple[str | None, str]:
    """A page's heading on the website: (its chapter number or None, its title)."""
    heading = re.search(r'<h1>(?:<span class="section-number">(\d+)\. </span>)?((?:(?!</h1>).)*?)<a class="headerlink"',
                        (html / f"{page}.html").read_text(), re.S)
    return heading.group(1), normalised(heading.group(2))


def chapter_mismatches(in_pdf: list, on_site: list) -> list[str]:
    """What keeps the PDF's chapters (pdf_chapters) from being the site's (site_chapter of each page of _toc.yml, the
    root page first): every page after the root is one chapter of the PDF, in order, with the number the site gives
    it (none for the back matter); no other chapter has a number; the root page's title and sections come first,
    unnumbered."""
    (_, root_title), *pages_after = on_site
    problems = [f"{entry} is {in_pdf.count(entry)} times among the PDF's chapters" for entry in pages_after if in_pdf.count(entry) != 1]
    if problems:
        return problems
    positions = [in_pdf.index(entry) for entry in pages_after]
    if positions != sorted(positions):
        problems.append(f"the chapters are out of order: {positions}")
    if [entry for entry in in_pdf if entry[0]] != [entry for entry in pages_after if entry[0]]:
        problems.append(f"numbered in the PDF: {[entry for entry in in_pdf if entry[0]]}")
    front = in_pdf[: min(positions)]
    if not front or front[0] != (None, root_title) or any(number for number, _ in front):
        problems.append(f"front matter: {front}")
    return problems


@pytest.mark.parametrize("teacher", [False, True], ids=["student", "teacher"])
def test_the_chapters_are_the_sites_in_order_with_its_numbers(latex, built_book, teacher):
    result, html = built_book
    assert result.returncode == 0, "the site did not build; see test_book_builds_with_zero_warnings"
    on_site = [site_chapter(html, page) for page in pages() if teacher or page != GUIDE]
    assert sum(number is not None for number, _ in on_site) >= 12
    assert not chapter_mismatches(pdf_chapters(latex, teacher), on_site)


def test_chapters_numbered_off_the_site_are_found(latex, built_book):
    """The check above on the PDF's chapters spoilt three ways: every number two too high (what the PDF was before
    book_pdf.py made the root page front matter), a front-matter section numbered, two chapters swapped."""
    _, html = built_book
    on_site = [site_chapter(html, page) for page in pages() if page != GUIDE]
    in_pdf = pdf_chapters(latex)
    shifted = [(str(int(number) + 2) if number else None, title) for number, title in in_pdf]
    numbered_front = [("1", title) if i == 1 else (number, title) for i, (number, title) in enumerate(in_pdf)]
    first, second = in_pdf.index(on_site[1]), in_pdf.index(on_site[2])
    swapped = list(in_pdf)
    swapped[first], swapped[second] = swapped[second], swapped[first]
    for spoilt in (shifted, numbered_front, swapped):
        assert chapter_mismatches(spoilt, on_site), spoilt


def test_equation_numbers_are_the_sites(latex, built_book):
    """Every labelled equation of every chapter has in the PDF the number it has on the site, e.g. (6.3)."""
    result, html = built_book
    assert result.returncode == 0, "the site did not build; see test_book_builds_with_zero_warnings"
    aux = (latex / f"{stem()}.aux").read_text()
    numbered = 0
    for chapter in chapters():
        site = dict(re.findall(r'id="equation-([\w-]+)">\s*<span class="eqno">\(([\d.]+)\)', (html / f"{chapter}.html").read_text()))
        pdf = dict(re.findall(rf"\\newlabel\{{equation:{re.escape(chapter)}:([\w-]+)\}}\{{\{{([\d.]+)\}}", aux))
        assert pdf == site, f"{chapter}: PDF {pdf}, site {site}"
        numbered += len(site)
    assert numbered >= 50


def code_lines(tags_wanted) -> set[str]:
    """The code lines of the chapters' cells whose tags meet tags_wanted(tags), that the PDF's text can show whole."""
    import jupytext

    return {
        line.strip()
        for chapter in chapters()
        for cell in jupytext.read(ROOT / f"{chapter}.md").cells
        if cell.cell_type == "code" and tags_wanted(set(cell.metadata.get("tags", [])))
        for line in cell.source.splitlines()
        if len(line.strip()) in CODE_LINE_LENGTHS and not line.strip().startswith("#")
    }


def source(chapter: str) -> str:
    return (ROOT / f"{chapter}.md").read_text()


def shown_lines() -> set[str]:
    """Code lines of the cells the website shows open (the solutions' included)."""
    return code_lines(lambda tags: not tags & (HIDING_TAGS | REMOVING_TAGS))


def hidden_only_lines() -> set[str]:
    """Lines of hidden cells' code that no shown cell holds."""
    return code_lines(lambda tags: bool(tags & HIDING_TAGS)) - shown_lines()


def outside_the_solutions() -> set[str]:
    """Every line of the book's chapters outside their solutions, stripped."""
    lines = set()
    for chapter in chapters():
        text = source(chapter)
        for exercise in student_notebooks.exercises_of(text):
            text = text.replace(exercise.solution_block, "") if exercise.solution_block else text
        lines |= {line.strip() for line in text.splitlines()}
    return lines


def test_the_pdf_prints_shown_code(text):
    """Most code lines of the shown cells outside the solutions are found whole in the PDF's text (a long line may
    wrap), so that the absence of the hidden ones below means something."""
    shown = shown_lines() & outside_the_solutions()
    found = shown & text_lines(text)
    assert len(found) >= 0.8 * len(shown), f"{len(found)} of {len(shown)} shown code lines found in the PDF"


def test_hidden_inputs_print_their_outputs_only(text):
    """No line of a hide-input or hide-cell cell's code, e.g. rope_2d's `theta, m, n = 0.35, 3, 1`."""
    hidden = hidden_only_lines()
    assert HIDDEN_EXAMPLE in hidden and len(hidden) >= 100
    assert not sorted(hidden & text_lines(text))


HIDDEN_EXAMPLE = "assert np.allclose(shifted, closed_form, atol=1e-12)"
"""A line of a hide-input cell of "RoPE in two dimensions", and of no shown cell."""


def test_a_hidden_line_in_the_pdf_would_be_found(text):
    planted = text + "\n    " + HIDDEN_EXAMPLE + "\n"
    assert sorted(hidden_only_lines() & text_lines(planted)) == [HIDDEN_EXAMPLE]


def test_the_exercises_keep_their_statements_and_lose_their_solutions(text):
    """Each exercise's title is printed, one number for each; no solution's title ("Solution to Exercise …") and no
    line that only a solution holds (book/_ext/student_notebooks.py's parser finds them)."""
    assert "Solution to" not in text
    lines = text_lines(text)
    elsewhere = outside_the_solutions()  # a line a solution shares with another chapter's text may be printed there
    code = {chapter: (student_notebooks.solution_only_lines(source(chapter)) & code_lines(lambda tags: True)) - elsewhere
            for chapter in chapters()}
    assert sum(map(len, code.values())) >= 100, "too few solution code lines to tell anything"
    printed = {chapter: sorted(found & lines) for chapter, found in code.items() if found & lines}
    assert not printed, f"solution lines in the PDF: {printed}"
    exercises = [exercise for chapter in chapters() for exercise in student_notebooks.exercises_of(source(chapter))]
    # an exercise's title starts a line; so may a reference to one that wraps there, hence the numbers, each once
    assert len(set(re.findall(r"^\s*Exercise (\d+\.\d+)", text, re.M))) == len(exercises)


def test_a_solution_in_the_pdf_would_be_found(text):
    planted = text + "\n" + "    out[0::2] = even * np.cos(a) - odd * np.sin(a)\n"
    code = student_notebooks.solution_only_lines(source("book/rope_at_a_glance")) - outside_the_solutions()
    assert sorted(code & text_lines(planted)) == ["out[0::2] = even * np.cos(a) - odd * np.sin(a)"]


def test_render_pages_to_look_at(latex, text):
    """The title page, the contents, the first page of the chapter that holds the proof and the first page after it
    with a figure (pdfimages lists them), to PNG (pdftoppm), for a reader of the test run to look at."""
    pdf = latex / f"{stem()}.pdf"
    PAGES_TO_LOOK_AT.mkdir(parents=True, exist_ok=True)
    page_texts = text.split("\f")
    proof = next(i for i, page in enumerate(page_texts, start=1)
                 if re.search(r"^\s*RoPE in two dimensions\s*$", page, re.M | re.I) and "After this chapter" in page)
    images = subprocess.run(["pdfimages", "-list", str(pdf)], capture_output=True, text=True, check=True).stdout
    with_images = sorted({int(row.split()[0]) for row in images.splitlines()[2:]})
    wanted = {"title": 1, "contents": next(i for i, page in enumerate(page_texts, start=1) if "CONTENTS" in page.upper()),
              "rope_2d": proof, "figure": next(i for i in with_images if i >= proof)}
    for name, number in wanted.items():
        subprocess.run(["pdftoppm", "-png", "-r", "70", "-f", str(number), "-l", str(number), "-singlefile",
                        str(pdf), str(PAGES_TO_LOOK_AT / name)], check=True)
        assert (PAGES_TO_LOOK_AT / f"{name}.png").stat().st_size > 10_000, name
