"""The classroom slide decks (book/_ext/slides.py): one reveal.js deck per chapter, made from the
notebooks the book build executed, with the slides the chapter's tags ask for, and nothing loaded
from another host, checked in headless Chromium as a presenter would open them."""

from __future__ import annotations

import re
import sys
from urllib.parse import urlparse

import nbformat
import pytest

from paths import ROOT, chapters, chinese_chapters, toc_parts

sys.path.insert(0, str(ROOT / "book" / "_ext"))
import classroom_markdown  # noqa: E402
import slides  # noqa: E402
import student_notebooks  # noqa: E402

SLIDES_PER_DECK = range(8, 21)
"""A 45-minute lecture covers a chapter or two: each deck holds 8 to 20 slides."""


def lecture_chapters() -> list[str]:
    """The chapters whose decks the teacher's guide links: each must tag its slides."""
    guide = (ROOT / "book" / "teachers_guide.md").read_text()
    return [f"book/{name}" for name in re.findall(r'href="\.\./_static/slides/(\w+)\.slides\.html"', guide)]


def slide_chapters() -> list[str]:
    """Every chapter that tags cells for slides gets a deck (a chapter without tags has none yet)."""
    return [chapter for chapter in chapters() if tagged_slides(chapter)]
FOREIGN = re.compile(r"""(?:\b(?:src|href|action|data)\s*=\s*["']?|url\(\s*["']?|\bimport\s[^;]*?["']|@import\s+["'])(?:https?:)?//""", re.I)


def tagged_slides(chapter: str) -> int:
    """Slides the chapter's tags ask for: cells tagged slide."""
    import jupytext

    notebook = jupytext.read(ROOT / f"{chapter}.md")
    return sum(slides.slide_type(cell) == "slide" for cell in notebook.cells)


def slides_of(notebook) -> list[list]:
    """The notebook's cells grouped by slide: each group starts at a slide-tagged cell and runs to the next one (the
    cells before the first slide belong to none)."""
    groups = []
    for cell in notebook.cells:
        if slides.slide_type(cell) == "slide":
            groups.append([cell])
        elif groups:
            groups[-1].append(cell)
    return groups


def slides_without_notes(notebook) -> list[str]:
    """The opening line of each slide that no notes cell follows before the next slide starts."""
    return [
        group[0].source.strip().splitlines()[0] if group[0].source.strip() else "(empty)"
        for group in slides_of(notebook)
        if not any(slides.slide_type(cell) == "notes" and cell.source.strip() for cell in group[1:])
    ]


PROOF_FRAGMENT_SLIDES = 3
"""The derivation's decks step through it: at least this many slides of each reveal an equation of the derivation
as a fragment, one step a click."""
SHOWN_EQUATION = re.compile(r"^[ \t]*\{equation\}`([\w-]+)`[ \t]*$", re.M)
"""A slide's line that shows a labelled equation of the book."""


# ---- the tag vocabulary and the MyST → Markdown step, without a build ----


def test_tags_map_to_slide_types_and_untagged_cells_are_skipped():
    cell = lambda *tags: nbformat.v4.new_markdown_cell("x", metadata={"tags": list(tags)})  # noqa: E731
    assert [slides.slide_type(cell(t)) for t in ("slide", "on-slide", "fragment", "notes")] == ["slide", "-", "fragment", "notes"]
    assert slides.slide_type(cell()) == "skip" and slides.slide_type(cell("hide-input")) == "skip"
    assert slides.slide_type(cell("subslide")) == "skip", "no vertical slides: the arrow keys reach every slide in order"
    assert slides.slide_type(cell("hide-input", "slide")) == "slide"


def test_no_chapter_stacks_slides_vertically():
    import jupytext

    for chapter in chapters():
        tags = {t for cell in jupytext.read(ROOT / f"{chapter}.md").cells for t in cell.metadata.get("tags", [])}
        assert "subslide" not in tags, f"{chapter}: a subslide is reached only by the down-arrow key"


def made_up_edition(chapter: int | None = None) -> classroom_markdown.Edition:
    """An edition of one page, `page_x` (chapter `chapter`), titled "Page X", with a section `ch-x` and an equation
    `eq-x`, numbered 1, and the book's references."""
    return classroom_markdown.Edition(
        "en", {"page_x": chapter} if chapter else {},
        targets={"ch-x": classroom_markdown.Target("Title"), "page_x": classroom_markdown.Target("Page X")},
        equations={"eq-x": classroom_markdown.Equation("1", "x = 1")},
        citations=classroom_markdown.citations(ROOT / "book" / "references.bib"),
    )


def test_myst_becomes_markdown_a_deck_can_render():
    glued = {"glance_d": {"text/plain": "128"}, "gap": {"text/plain": "3.14159e-13"}}
    edition = made_up_edition(chapter=6)
    text = (
        "(ch-x)=\n# Title\n\nFor $d =$ {glue:text}`glance_d` the gap is {glue:text}`gap:.1e` {cite}`su2021roformer`.\n\n"
        "$$\nx = 1\n$$ (eq-x)\n\nSee {eq}`eq-x`, {ref}`ch-x`, {doc}`page_x` and {ref}`that chapter <ch-x>`.\n\n"
        "```{admonition} After this chapter you can\n:class: tip\n- do things\n```\n\n"
        "```{prf:definition} The goal\n:label: def-goal\n\nFind $f$.\n```\n\n"
        "```{literalinclude} ../rope_lib/frequencies.py\n:pyobject: inv_freq\n```\n"
    )
    out = slides.SlideMarkdown(ROOT / "book" / "page_x.md", edition, glued).markdown(text)
    assert out.startswith("# Title\n"), "a slide shows the chapter's title without its number"
    assert "(ch-x)=" not in out and "$$ (eq-x)" not in out and "$$\nx = 1\n\\tag{1}\n$$" in out
    assert "For $d =$ 128 the gap is 3.1e-13 (Su et al., 2021)." in out
    assert "See (1), Title, Page X and that chapter." in out
    assert "**After this chapter you can**\n\n- do things" in out
    assert "**Definition: The goal.**\n\nFind $f$." in out
    assert "literalinclude" not in out and ":class:" not in out and ":label:" not in out


@pytest.mark.parametrize("folder", ["book", "book/zh"])
def test_a_citation_reads_the_same_in_a_deck_and_in_a_student_edition(folder):
    """Decks and student editions cite with one reader of references.bib, as the site does: "(Su et al., 2021)"."""
    chapter = ROOT / folder / "rope_2d.md"
    edition = student_notebooks.edition_of(chapter.parent)
    cited = "RoPE {cite}`su2021roformer`, after {cite}`su2021roformer,vaswani2017attention`."
    deck = slides.SlideMarkdown(chapter, edition, {}).markdown(cited)
    student = classroom_markdown.Chapter(chapter, edition, {}).markdown(cited)
    assert deck == student == "RoPE (Su et al., 2021), after (Su et al., 2021; Vaswani et al., 2017)."


def test_a_slide_shows_the_pages_equation_and_never_a_question_mark():
    """`{equation}`label`` shows the labelled equation as the page has it, with the site's number; a reference,
    citation or glued name the edition lacks stops the build instead of showing "(?)", naming the chapter and cell."""
    edition = made_up_edition()
    edition.equations["eq-x"] = classroom_markdown.Equation("6.2", "a = b\\\\\n  c = d")
    markdown = slides.SlideMarkdown(ROOT / "book" / "page_x.md", edition, {})
    assert markdown.markdown("Set $n = m$:\n\n{equation}`eq-x`\n") == "Set $n = m$:\n\n$$\na = b\\\\\n  c = d\n\\tag{6.2}\n$$"
    planted = ("{equation}`eq-y`", "{equation}`ch-x`", "See {eq}`eq-y`.", "{ref}`ex-y`", "{ref}`eq-x`", "{doc}`nowhere`",
               "{glue:text}`missing`", "{cite}`nobody2099`", "{numref}`fig-x`")
    for text in planted:
        with pytest.raises(slides.UnresolvedReference):
            markdown.markdown(text)
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("See {eq}`eq-y`.", metadata={"tags": ["slide"]})])
    with pytest.raises(slides.UnresolvedReference, match=r"page_x: a slide cell beginning 'See \{eq\}`eq-y`.'"):
        slides.slide_notebook(notebook, markdown)


def made_up_chapter(folder) -> classroom_markdown.Edition:
    """A book of one numbered chapter, `page`, whose cells label equations, one of them in a slide cell the page never
    shows, and headings, one of them opening the cell after its label's."""
    import jupytext

    (folder / "_toc.yml").write_text("format: jb-book\nroot: page\nparts:\n  - caption: A\n    numbered: 1\n    chapters:\n"
                                     "      - file: page\n")
    (folder / "_config.yml").write_text("title: A\n")
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("$$\nz\n$$ (on-a-slide)", metadata={"tags": ["slide", "remove-cell"]}),
        nbformat.v4.new_markdown_cell("# The page\n\n$$\na\n$$ (first)\n\n$$\nb\n$$\n\n(sec-late)="),
        nbformat.v4.new_markdown_cell("## A late heading\n\n(sec-both)=\n## Both"),
        nbformat.v4.new_code_cell("x = 1"),
        nbformat.v4.new_markdown_cell("$$\nc\n$$ (sec-both)\n\n1. In a list item:\n\n   $$\n   e\n   $$ (indented)"),
    ])
    (folder / "page.md").write_text(jupytext.writes(notebook, fmt="md:myst"))
    return classroom_markdown.edition_of(folder, "en")


def test_equations_are_numbered_as_the_page_numbers_them(tmp_path):
    """One reader numbers the equations for the decks and the student editions, as the site does: per chapter, only
    what the page shows, a section's label and an equation's apart."""
    edition = made_up_chapter(tmp_path)
    assert {label: (eq.number, eq.tex) for label, eq in edition.equations.items()} == {
        "first": ("1.1", "a"), "sec-both": ("1.2", "c"), "indented": ("1.3", "e")}, "the site numbers only what the page shows"
    assert edition.target("sec-late").text == "A late heading" and edition.target("sec-both").text == "Both"
    markdown = slides.SlideMarkdown(tmp_path / "page.md", edition, {})
    assert "   $$\n   e\n   \\tag{1.3}\n   $$" in markdown.markdown("1. Item:\n\n   $$\n   e\n   $$ (indented)\n")
    assert markdown.markdown("{ref}`sec-both`, {eq}`sec-both`, {ref}`sec-late`") == "Both, (1.2), A late heading"
    assert classroom_markdown.edition_of(ROOT, "en").target("ch-rope-nd").text == "RoPE in d dimensions"
    assert slides.deck_title("Multiplying by $e^{\\mathrm{i}\\theta}$") == "Multiplying by e^{\\mathrm{i}\\theta}", "a deck's <title> shows no math"


def test_chapter_numbers_follow_the_numbered_toc():
    parts = toc_parts()
    numbers = classroom_markdown.chapter_numbers(ROOT)
    numbered = [entry["file"].split("/")[-1] for part in parts if part.get("numbered") for entry in part["chapters"]]
    assert parts[0]["numbered"], "the teaching chapters are numbered, so equations are numbered per chapter"
    assert list(numbers) == numbered and list(numbers.values()) == list(range(1, len(numbered) + 1))  # running on across parts
    assert numbers["implementations_and_speed"] == len(parts[0]["chapters"]) + 1  # the appendix follows the chapters
    assert "intro" not in numbers and "teachers_guide" not in numbers and "references" not in numbers


@pytest.mark.slow
def test_deck_equation_numbers_are_the_sites(built_book):
    """Every labelled equation of a chapter carries on its slide the number the site gives it, e.g. (6.3)."""
    result, html = built_book
    if result.returncode != 0:
        pytest.fail("the book did not build; see test_book_builds_with_zero_warnings")
    edition = classroom_markdown.edition_of(ROOT, "en")
    numbers = edition.chapters
    for chapter in slide_chapters():
        name = chapter.split("/")[-1]
        page = (html / f"{chapter}.html").read_text()
        site = dict(re.findall(r'id="equation-([\w-]+)">\s*<span class="eqno">\(([\d.]+)\)', page))
        deck = {label: eq.number for label, eq in edition.equations.items() if eq.number.startswith(f"{numbers[name]}.")}
        assert deck == site, f"{chapter}: slides {deck}, site {site}"
        assert all(n.startswith(f"{numbers[name]}.") for n in site.values())


def test_every_lecture_chapter_tags_its_slides():
    """Each chapter of the lecture plan asks for a deck of 8 to 20 slides."""
    assert len(lecture_chapters()) >= 8 and set(lecture_chapters()) <= set(chapters())
    for chapter in set(lecture_chapters()) | set(slide_chapters()):
        assert tagged_slides(chapter) in SLIDES_PER_DECK, f"{chapter}: {tagged_slides(chapter)} slides tagged"


def test_every_slide_of_every_deck_has_speaker_notes():
    """A teacher presses S on any slide of any deck and finds what to say: each slide- or subslide-tagged cell of
    every chapter with a deck (the appendix's included) is followed, before the next slide, by a notes cell."""
    import jupytext

    assert len(slide_chapters()) >= 8 and set(lecture_chapters()) <= set(slide_chapters())
    missing = {}
    for chapter in slide_chapters():
        lacking = slides_without_notes(jupytext.read(ROOT / f"{chapter}.md"))
        if lacking:
            missing[chapter] = lacking
    assert not missing, f"slides without speaker notes: {missing}"


def test_a_slide_without_notes_is_found():
    """The check above, on a chapter with one slide's notes taken away, and on a slide planted with none."""
    import jupytext

    notebook = jupytext.read(ROOT / "book" / "rope_2d.md")
    assert slides_without_notes(notebook) == []
    first_notes = next(i for i, cell in enumerate(notebook.cells) if slides.slide_type(cell) == "notes")
    del notebook.cells[first_notes]
    assert len(slides_without_notes(notebook)) == 1
    planted = jupytext.read(ROOT / "book" / "rope_2d.md")
    planted.cells.append(nbformat.v4.new_markdown_cell("## Planted", metadata={"tags": ["slide"]}))
    assert slides_without_notes(planted) == ["## Planted"]
    planted.cells.append(nbformat.v4.new_markdown_cell("", metadata={"tags": ["notes", "remove-cell"]}))
    assert slides_without_notes(planted) == ["## Planted"], "an empty notes cell says nothing"


DERIVATION = {
    "rope_2d": {"rope2d-goal", "rope2d-conditions", "rope2d-polar-product", "rope2d-radial-growth", "rope2d-angle-linear",
                "rope2d-assembled-query", "rope2d-solution", "rope2d-step-query-rotation", "rope2d-check"},
    "rope_nd": {"ropend-goal", "ropend-exp-goal", "ropend-canonical", "ropend-exp-block", "ropend-theta", "ropend-relative",
                "ropend-elementwise"},
}
"""The derivation from two to d dimensions, one lecture: each step's equation, as the pages label it."""


@pytest.mark.parametrize("edition", ["book", "book/zh"])
@pytest.mark.parametrize("name", sorted(DERIVATION))
def test_the_derivation_decks_step_through_it(edition, name):
    """Every step of the derivation is on a slide, as the page's own labelled equation (`{equation}`label``), and at
    least PROOF_FRAGMENT_SLIDES slides reveal a step at a click."""
    import jupytext

    notebook = jupytext.read(ROOT / edition / f"{name}.md")
    labels = classroom_markdown.Edition("en")
    labels.add_page(ROOT / edition / f"{name}.md")
    page = set(labels.equations)
    shown = [cell for group in slides_of(notebook) for cell in group if slides.slide_type(cell) in ("slide", "fragment") and cell.cell_type == "markdown"]
    on_slides = {label for cell in shown for label in SHOWN_EQUATION.findall(cell.source)}
    assert DERIVATION[name] <= page, f"{edition}/{name}: steps the page does not label: {sorted(DERIVATION[name] - page)}"
    assert DERIVATION[name] <= on_slides, f"{edition}/{name}: steps not on a slide: {sorted(DERIVATION[name] - on_slides)}"
    stepping = [
        group[0].source.strip().splitlines()[0]
        for group in slides_of(notebook)
        if any(slides.slide_type(cell) == "fragment" and SHOWN_EQUATION.search(cell.source) for cell in group)
    ]
    assert len(stepping) >= PROOF_FRAGMENT_SLIDES, f"{edition}/{name}: slides that step through an equation: {stepping}"


@pytest.mark.parametrize("chapter", chapters())
def test_both_editions_have_the_same_deck(chapter):
    """The guide names slides by number in both editions: a chapter's Chinese deck steps through the same slides,
    fragments, figures and notes, in the same order, as its English one, and shows the same equations."""
    import jupytext

    def deck(path):
        cells = [cell for cell in jupytext.read(ROOT / path).cells if slides.slide_type(cell) != "skip"]
        return [(slides.slide_type(cell), cell.cell_type) for cell in cells], [SHOWN_EQUATION.findall(c.source) for c in cells]

    name = chapter.split("/")[-1]
    assert deck(f"book/{name}.md") == deck(f"book/zh/{name}.md")


def test_deck_cells_stay_off_the_page():
    """What a deck says is the lecturer's, not the page's: every markdown cell tagged for a slide, a fragment or notes
    is tagged remove-cell too, so the page (and the student edition) never shows it."""
    import jupytext

    for chapter in chapters() + chinese_chapters():
        for cell in jupytext.read(ROOT / f"{chapter}.md").cells:
            if cell.cell_type == "markdown" and slides.slide_type(cell) != "skip":
                assert not classroom_markdown.on_the_page(cell), f"{chapter}: a slide cell the page shows: {cell.source.strip()[:60]!r}"


# ---- the decks as a lecturer presents them: headless Chromium at a projector's 1280×720 ----

PROJECTOR = {"width": 1280, "height": 720}
MOST_WORDS = 60
"""A slide holds a title, an equation, figure or listing, and a few lines: at most this many words of prose."""
MEDIAN_WORDS = 35
"""…and about 30 on a typical slide of a deck."""
HALF_THE_SLIDE = 0.5
"""A figure narrower than half the slide has its text a few pixels high at 1280×720…"""
TALL_FIGURE = 0.6
"""…unless it is a tall one that takes this share of the slide's height: a square figure under a title fills the
slide at about 60% of its height and 40% of its width."""
CHINESE_CHARACTERS_PER_WORD = 1.6
"""Prose is counted in words: a Chinese slide's characters count as words at this rate."""
ADVANCE_KEYS = ("ArrowRight", "Space", "PageDown")
"""What steps a deck forward: the right-arrow key, the space bar, and a clicker (which sends Page Down)."""

SLIDE_JS = r"""() => {
  const slide = Reveal.getCurrentSlide();
  const frame = document.querySelector(".reveal .slides").getBoundingClientRect();
  // MathJax's copy for screen readers (mjx-assistive-mml) is clipped to nothing on screen: not part of what is seen
  const shown = (e) => !e.closest("aside.notes, mjx-assistive-mml") && e.getClientRects().length > 0;
  const parts = [...slide.querySelectorAll("*")].filter(shown);
  let right = 0, bottom = 0, left = 0, top = 0;
  for (const e of parts) {
    const r = e.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    right = Math.max(right, r.right - frame.right); bottom = Math.max(bottom, r.bottom - frame.bottom);
    left = Math.max(left, frame.left - r.left); top = Math.max(top, frame.top - r.top);
  }
  const prose = slide.cloneNode(true);
  prose.querySelectorAll("aside.notes, mjx-container, pre, .jp-OutputArea, .jp-OutputArea-output, .rope-interactive, script, style").forEach((e) => e.remove());
  const words = prose.textContent;
  const blocks = [...slide.querySelectorAll("p, li, h1, h2, h3, h4, pre, img, svg, table, mjx-container[display='true'], .jp-OutputArea-output")]
    .filter(shown).filter((e) => !e.closest("mjx-container") || e.matches("mjx-container"));
  const last = blocks.filter((e) => !blocks.some((o) => o !== e && e.contains(o) && o.matches("img, svg, mjx-container, pre, table"))).pop();
  const lastText = last && last.matches("p, li, h1, h2, h3, h4") ? last.textContent.trim() : "";
  const heading = slide.querySelector("h1, h2, h3");
  const figures = [...slide.querySelectorAll(".jp-OutputArea-output img, img.rope-frame, .jp-OutputArea-output svg")].filter(shown)
    .map((e) => { const r = e.getBoundingClientRect(); return [r.width / frame.width, r.height / frame.height]; });
  return {
    title: heading ? heading.textContent.replace(/¶$/, "").trim() : "(no title)",
    overflow: Math.round(Math.max(right, bottom, left, top)),
    text: slide.textContent,
    prose: words,
    dangling: /[:：]$/.test(lastText) ? lastText.slice(-80) : "",
    capitals: [...slide.querySelectorAll("h1, h2, h3, h4")].filter((h) => h.querySelector("mjx-container") && getComputedStyle(h).textTransform === "uppercase").length,
    figures: figures,
  };
}"""


def prose_words(text: str) -> int:
    """Words of prose: Latin words, numbers and identifiers, and Chinese characters at CHINESE_CHARACTERS_PER_WORD."""
    chinese = len(re.findall(r"[\u4e00-\u9fff]", text))
    latin = len(re.findall(r"[A-Za-z0-9_][\w'’.-]*", text))
    return latin + round(chinese / CHINESE_CHARACTERS_PER_WORD)


def open_deck(page, url: str) -> int:
    page.goto(url, wait_until="networkidle")
    page.wait_for_function("() => window.Reveal && Reveal.isReady() && window.MathJax && MathJax.startup && MathJax.startup.promise")
    page.evaluate("() => MathJax.startup.promise")
    return page.evaluate("() => Reveal.getTotalSlides()")


def measure_deck(page, url: str) -> dict:
    """Each slide of the deck at `url` with all its fragments shown, as SLIDE_JS measures it, and the slides each
    advance key reaches from the first, in the order it reaches them."""
    total = open_deck(page, url)
    measured = []
    for h in range(page.evaluate("() => Reveal.getHorizontalSlides().length")):
        page.evaluate(f"() => Reveal.slide({h}, 0, 1000)")
        page.wait_for_timeout(60)
        slide = page.evaluate(SLIDE_JS)
        slide["words"] = prose_words(slide.pop("prose"))
        measured.append(slide)
    steps = total + page.evaluate("() => document.querySelectorAll('.slides .fragment').length")
    reached = {}
    for key in ADVANCE_KEYS:
        page.evaluate("() => Reveal.slide(0, 0, -1)")
        seen = [page.evaluate("() => Reveal.getIndices()")]
        for _ in range(steps):
            page.keyboard.press(key)
            seen.append(page.evaluate("() => Reveal.getIndices()"))
        reached[key] = [(s["h"], s.get("v") or 0) for s in seen]
    return {"total": total, "slides": measured, "reached": reached}


def deck_problems(deck: dict) -> list[str]:
    """What keeps a deck from being presented as it is, slide by slide (numbered from 1, as the deck numbers them)."""
    problems = []
    slides_seen = deck["slides"]
    if deck["total"] != len(slides_seen):
        problems.append(f"{deck['total']} slides, {len(slides_seen)} of them reached by left and right")
    for key, seen in deck["reached"].items():
        order = list(dict.fromkeys(seen))
        if [h for h, _ in order] != list(range(len(slides_seen))) or any(v for _, v in order):
            problems.append(f"{key} steps through {[h + 1 for h, _ in order]} of {len(slides_seen)}")
    for number, slide in enumerate(slides_seen, start=1):
        where = f"slide {number} ({slide['title'][:50]})"
        if slide["overflow"] > 2:
            problems.append(f"{where}: runs {slide['overflow']} px off the frame")
        if "(?)" in slide["text"] or "??" in slide["text"]:
            problems.append(f"{where}: an unresolved reference")
        if slide["dangling"]:
            problems.append(f"{where}: ends announcing what it does not show: {slide['dangling']!r}")
        if slide["capitals"]:
            problems.append(f"{where}: maths in a title set in capitals")
        small = [(w, h) for w, h in slide["figures"] if w < HALF_THE_SLIDE and h < TALL_FIGURE]
        if small:
            problems.append(f"{where}: a figure {small[0][0]:.0%} of the slide's width and {small[0][1]:.0%} of its height")
        if slide["words"] > MOST_WORDS:
            problems.append(f"{where}: {slide['words']} words of prose")
    words = sorted(s["words"] for s in slides_seen)
    if words and words[len(words) // 2] > MEDIAN_WORDS:
        problems.append(f"a median of {words[len(words) // 2]} words a slide")
    return problems


def test_deck_problems_are_found():
    """Each measurement of a deck can fail: a planted slide of each fault is reported."""
    fine = {"title": "A slide", "overflow": 0, "text": "A slide (6.1)", "dangling": "", "capitals": 0, "figures": [[0.8, 0.5], [0.4, 0.65]], "words": 20}
    deck = lambda *slides, reached=None: {"total": len(slides), "slides": list(slides), "reached": reached or {"ArrowRight": [(i, 0) for i in range(len(slides))]}}  # noqa: E731
    assert deck_problems(deck(fine, fine)) == []
    planted = {
        "runs 300 px off": {"overflow": 300}, "unresolved": {"text": "eq. (?)"}, "announcing": {"dangling": "as follows:"},
        "capitals": {"capitals": 1}, "20% of the slide's width and 30%": {"figures": [[0.2, 0.3]]}, "61 words": {"words": 61},
    }
    for found, fault in planted.items():
        assert any(found in p for p in deck_problems(deck(fine, {**fine, **fault}))), found
    assert any("steps through [1, 3, 2]" in p for p in deck_problems(deck(fine, fine, fine, reached={"Space": [(0, 0), (2, 0), (1, 1)]})))
    assert any("median of 50" in p for p in deck_problems(deck(*[{**fine, "words": 50}] * 3)))
    assert prose_words("Turn each pair by mθ: rotate_pairs") == 6 and prose_words("每一对转过一个角度") == 6


@pytest.fixture(scope="module")
def presented(built_book, serve, chromium):
    """Every deck of both editions as measure_deck measures it in the built site: {"zh/rope_2d": {...}, ...}."""
    from playwright.sync_api import sync_playwright

    result, html = built_book
    if result.returncode != 0:
        pytest.fail("the book did not build; see test_book_builds_with_zero_warnings")
    decks = sorted(html.glob("_static/slides/*.slides.html")) + sorted(html.glob("zh/_static/slides/*.slides.html"))
    measured = {}
    with serve(html) as origin, sync_playwright() as p:
        browser = p.chromium.launch(**chromium)
        page = browser.new_page(viewport=PROJECTOR)
        for deck in decks:
            name = deck.relative_to(html).as_posix().replace("_static/slides/", "").replace(".slides.html", "")
            measured[name] = measure_deck(page, f"http://{origin}/{deck.relative_to(html).as_posix()}")
        browser.close()
    return measured


@pytest.mark.slow
def test_every_chapter_page_links_its_deck(built_book):
    """A lecturer finds the deck on the chapter's page, in both editions, and the link leads to it."""
    result, html = built_book
    if result.returncode != 0:
        pytest.fail("the book did not build; see test_book_builds_with_zero_warnings")
    for chapter in slide_chapters():
        name = chapter.split("/")[-1]
        for page, deck in ((html / f"{chapter}.html", f"../_static/slides/{name}.slides.html"),
                           (html / "zh" / f"{name}.html", f"_static/slides/{name}.slides.html")):
            link = re.search(r'<p class="rope-deck"><a href="([^"]+)">', page.read_text())
            assert link and link.group(1) == deck, f"{page}: no link to its deck {deck}"
            assert (page.parent / deck).resolve().is_file(), f"{page}: the link to {deck} leads nowhere"


@pytest.mark.slow
def test_every_deck_of_both_editions_is_presentable_at_1280x720(presented):
    """No slide runs off the frame, leaves a "(?)", ends on a line announcing what it does not show, sets maths in
    capitals, shows a figure narrower than half the slide or holds more than MOST_WORDS words; the arrow key, the
    space bar and a clicker reach every slide in order."""
    assert len([n for n in presented if n.startswith("zh/")]) == len([n for n in presented if not n.startswith("zh/")]) == len(slide_chapters())
    problems = [f"{name}: {problem}" for name, deck in presented.items() for problem in deck_problems(deck)]
    assert not problems, "\n".join(problems)


# ---- the decks, built from the book the test session built ----


@pytest.fixture(scope="module")
def decks(built_book, tmp_path_factory):
    """Decks written into a fresh folder laid out as the site (_static/slides), beside the built site's MathJax."""
    result, html = built_book
    if result.returncode != 0:
        pytest.fail("the book did not build; see test_book_builds_with_zero_warnings")
    if not (slides.DEFAULT_REVEAL / "dist" / "reveal.js").is_file():
        pytest.fail(f"reveal.js is not installed in {slides.DEFAULT_REVEAL}: `make test` installs it from npm")
    site = tmp_path_factory.mktemp("slides-site")
    static = site / "_static"
    static.mkdir()
    (static / "mathjax").symlink_to(html / "_static" / "mathjax", target_is_directory=True)
    counts = slides.write_decks(html.parent / "jupyter_execute", site / slides.SITE_FOLDER, slides.DEFAULT_REVEAL)
    return site / slides.SITE_FOLDER, counts


@pytest.mark.slow
def test_every_tagged_chapter_has_a_deck_with_the_slides_its_tags_ask_for(decks):
    folder, counts = decks
    assert set(lecture_chapters()) <= set(slide_chapters())
    for chapter in slide_chapters():
        name = chapter.split("/")[-1]
        assert (folder / f"{name}.slides.html").is_file(), f"{chapter}: no deck"
        assert counts[name] == tagged_slides(chapter), f"{chapter}: {counts[name]} slides in the deck, {tagged_slides(chapter)} tagged"
        assert counts[name] in SLIDES_PER_DECK


@pytest.mark.slow
def test_every_slide_of_every_deck_carries_its_notes(decks):
    """In the built decks, every slide holds an <aside class="notes">, which reveal.js shows on S."""
    folder, _ = decks
    for chapter in slide_chapters():
        html = (folder / f"{chapter.split('/')[-1]}.slides.html").read_text()
        sections = re.findall(r"<section[^>]*>(?!\s*<section)(.*?)</section>", html, re.S)
        assert len(sections) == slides.count_slides(html)
        bare = [i + 1 for i, section in enumerate(sections) if '<aside class="notes">' not in section]
        assert not bare, f"{chapter}: slides {bare} have no speaker notes"


@pytest.mark.slow
def test_no_deck_references_another_host(decks):
    folder, _ = decks
    for deck in sorted(folder.glob("*.slides.html")):
        html = deck.read_text()
        assert not FOREIGN.findall(html), f"{deck.name} loads from another host: {FOREIGN.findall(html)[:3]}"
        assert 'src="reveal.js/dist/reveal.js"' in html and 'src="../mathjax/tex-chtml.js"' in html
        assert "application/vnd.jupyter.widget-view+json" not in html and "require.js" not in html
    for css in (folder / "reveal.js").rglob("*.css"):
        assert not FOREIGN.findall(css.read_text()), f"{css} loads from another host"


@pytest.mark.slow
def test_decks_present_offline_in_a_browser(decks, serve, chromium):
    """Each deck opens with no console error and no request off the local server; every slide is reachable,
    its math typeset, and axe-core finds nothing serious or critical on it."""
    from axe_playwright_python.sync_playwright import Axe
    from playwright.sync_api import sync_playwright

    folder, counts = decks
    axe = Axe()
    problems = []
    with serve(folder.parents[1]) as origin, sync_playwright() as p:
        browser = p.chromium.launch(**chromium)
        for name, expected in counts.items():
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            errors, foreign = [], []
            page.on("console", lambda m, errors=errors: m.type == "error" and errors.append(m.text))
            page.on("pageerror", lambda e, errors=errors: errors.append(str(e)))

            def route(r, foreign=foreign):
                if urlparse(r.request.url).netloc != origin:
                    foreign.append(r.request.url)
                    r.abort()
                else:
                    r.continue_()

            page.route("**/*", route)
            total = open_deck(page, f"http://{origin}/_static/slides/{name}.slides.html")
            fragments = page.evaluate("() => document.querySelectorAll('.slides .fragment').length")
            for _ in range(total + fragments):  # Space shows a slide's next fragment before it moves on
                page.keyboard.press("Space")
            at_end = page.evaluate("() => Reveal.isLastSlide()")
            typeset = page.evaluate("() => document.querySelectorAll('mjx-container').length")
            errors, foreign = list(errors), list(foreign)  # what the deck itself did: axe fetches stylesheets on its own
            serious = [v["id"] for v in axe.run(page).response["violations"] if v["impact"] in ("serious", "critical")]
            if errors or foreign or total != expected or not at_end or typeset == 0 or serious:
                problems.append(
                    f"{name}: errors {errors}, foreign {foreign}, {total} slides of {expected}, at end {at_end}, "
                    f"{typeset} formulas, serious accessibility findings {serious}"
                )
            page.close()
        browser.close()
    assert not problems, "\n".join(problems)
