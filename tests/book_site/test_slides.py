"""The classroom slide decks (book/_ext/slides.py): one reveal.js deck per chapter, made from the
notebooks the book build executed, with the slides the chapter's tags ask for, and nothing loaded
from another host, checked in headless Chromium as a presenter would open them."""

from __future__ import annotations

import re
import sys
from urllib.parse import urlparse

import nbformat
import pytest

from paths import ROOT, chapters, toc_parts

sys.path.insert(0, str(ROOT / "book" / "_ext"))
import slides  # noqa: E402

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
    """Slides the chapter's tags ask for: cells tagged slide or subslide."""
    import jupytext

    notebook = jupytext.read(ROOT / f"{chapter}.md")
    return sum(slides.slide_type(cell) in ("slide", "subslide") for cell in notebook.cells)


def slides_of(notebook) -> list[list]:
    """The notebook's cells grouped by slide: each group starts at a slide- or subslide-tagged cell and runs to the
    next one (the cells before the first slide belong to none)."""
    groups = []
    for cell in notebook.cells:
        if slides.slide_type(cell) in ("slide", "subslide"):
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


PROOF_FRAGMENT_SLIDES = 3  # the derivation's two steps and the one-line check
"""The 2D chapter's deck steps through its derivation: at least this many slides reveal a labelled equation of the
derivation or the proof as a fragment (the finding of the solution, the two tools, the query and key turned, g in
real terms)."""
EQUATION_LABEL = re.compile(r"^[ \t]*\$\$[ \t]*\(([\w-]+)\)[ \t]*$", re.M)


# ---- the tag vocabulary and the MyST → Markdown step, without a build ----


def test_tags_map_to_slide_types_and_untagged_cells_are_skipped():
    cell = lambda *tags: nbformat.v4.new_markdown_cell("x", metadata={"tags": list(tags)})  # noqa: E731
    assert [slides.slide_type(cell(t)) for t in ("slide", "subslide", "fragment", "notes")] == ["slide", "subslide", "fragment", "notes"]
    assert slides.slide_type(cell()) == "skip" and slides.slide_type(cell("hide-input")) == "skip"
    assert slides.slide_type(cell("hide-input", "slide")) == "slide"


def test_myst_becomes_markdown_a_deck_can_render():
    glue = {"glance_d": {"data": {"text/plain": "128"}}, "gap": {"data": {"text/plain": "3.14159e-13"}}}
    bib = slides._bib_labels(ROOT / "book" / "references.bib")
    refs = {"equations": {"eq-x": 1}, "headings": {"ch-x": "Title"}}
    text = (
        "(ch-x)=\n# Title\n\nFor $d =$ {glue:text}`glance_d` the gap is {glue:text}`gap:.1e` {cite}`su2021roformer`.\n\n"
        "$$\nx = 1\n$$ (eq-x)\n\nSee {eq}`eq-x`, {ref}`ch-x` and {ref}`that chapter <ch-x>`.\n\n"
        "```{admonition} After this chapter you can\n:class: tip\n- do things\n```\n\n"
        "```{prf:definition} The goal\n:label: def-goal\n\nFind $f$.\n```\n\n"
        "```{literalinclude} ../rope_lib/frequencies.py\n:pyobject: inv_freq\n```\n"
    )
    out = slides.myst_to_markdown(text, glue, bib, refs)
    assert "(ch-x)=" not in out and "$$ (eq-x)" not in out and "$$\nx = 1\n\\tag{1}\n$$" in out
    assert "For $d =$ 128 the gap is 3.1e-13 (Su et al. 2021)." in out
    assert "See (1), Title and that chapter." in out
    assert "**After this chapter you can**\n\n- do things" in out
    assert "**Definition: The goal.**\n\nFind $f$." in out
    assert "literalinclude" not in out and ":class:" not in out and ":label:" not in out


def test_equations_are_numbered_as_the_page_numbers_them():
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("$$\na\n$$ (first)\n\n$$\nb\n$$"),
        nbformat.v4.new_code_cell("x = 1"),
        nbformat.v4.new_markdown_cell("$$\nc\n$$ (second)\n\n1. In a list item:\n\n   $$\n   e\n   $$ (indented)"),
    ])
    assert slides._equation_numbers(notebook) == {"first": 1, "second": 2, "indented": 3}
    assert slides._equation_numbers(notebook, 6) == {"first": "6.1", "second": "6.2", "indented": "6.3"}  # per chapter, as the site
    tagged = slides.myst_to_markdown("1. Item:\n\n   $$\n   e\n   $$ (indented)\n", {}, {}, {"equations": {"indented": "6.3"}})
    assert "   $$\n   e\n   \\tag{6.3}\n   $$" in tagged
    assert slides._heading_labels(ROOT / "book")["ch-rope-nd"] == "RoPE in d dimensions"


def test_chapter_numbers_follow_the_numbered_toc():
    parts = toc_parts()
    numbers = slides._chapter_numbers()
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
    numbers = slides._chapter_numbers()
    for chapter in slide_chapters():
        name = chapter.split("/")[-1]
        page = (html / f"{chapter}.html").read_text()
        site = dict(re.findall(r'id="equation-([\w-]+)">\s*<span class="eqno">\(([\d.]+)\)', page))
        notebook = nbformat.read(html.parent / "jupyter_execute" / f"{chapter}.ipynb", 4)
        deck = {label: str(n) for label, n in slides._equation_numbers(notebook, numbers.get(name)).items()}
        assert deck == site, f"{chapter}: slides {deck}, site {site}"
        assert all(n.startswith(f"{numbers[name]}.") for n in site.values())


def test_every_lecture_chapter_tags_its_slides():
    """Each chapter of the lecture plan asks for a deck of 8 to 20 slides: title, objectives, key equations and figures, summary."""
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


def test_the_2d_deck_steps_through_the_proof():
    """The derivation and the proof of the 2D chapter are on its slides: every labelled equation of the derivation's
    steps sits in a cell the deck shows, and at least PROOF_FRAGMENT_SLIDES slides reveal such an equation as a
    fragment."""
    import jupytext

    notebook = jupytext.read(ROOT / "book" / "rope_2d.md")
    shown = [cell for group in slides_of(notebook) for cell in group if slides.slide_type(cell) != "notes" and cell.cell_type == "markdown" and slides.slide_type(cell) != "skip"]
    on_slides = {label for cell in shown for label in EQUATION_LABEL.findall(cell.source)}
    everywhere = {label for cell in notebook.cells if cell.cell_type == "markdown" for label in EQUATION_LABEL.findall(cell.source)}
    steps = {"rope2d-polar-product", "rope2d-radial-growth", "rope2d-assembled-query", "rope2d-step-query-rotation", "rope2d-check"}
    assert steps <= everywhere and steps <= on_slides, f"derivation steps not on a slide: {sorted(steps - on_slides)}"
    assert {"rope2d-goal", "rope2d-conditions", "rope2d-angle-linear", "rope2d-solution"} <= on_slides
    stepping = [
        group[0].source.strip().splitlines()[0]
        for group in slides_of(notebook)
        if any(slides.slide_type(cell) == "fragment" and EQUATION_LABEL.search(cell.source) for cell in group)
    ]
    assert len(stepping) >= PROOF_FRAGMENT_SLIDES, f"slides that step through a labelled equation: {stepping}"


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
            page.goto(f"http://{origin}/_static/slides/{name}.slides.html", wait_until="networkidle")
            page.wait_for_function("() => window.Reveal && Reveal.isReady() && window.MathJax && MathJax.startup && MathJax.startup.promise")
            page.evaluate("() => MathJax.startup.promise")
            total = page.evaluate("() => Reveal.getTotalSlides()")
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
