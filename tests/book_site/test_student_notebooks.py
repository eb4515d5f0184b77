"""The student edition of each chapter (book/_ext/student_notebooks.py): no line of any solution, no speaker note,
every exercise statement kept, and for each coding exercise an empty "your turn" cell and a cell that runs its auto-check, which
answers NOT YET on the empty answer; the built site offers it in each chapter's download menu, and its Binder button
opens it. tests/book_site/test_notebook_environment.py runs it top to bottom in the Binder environment."""

from __future__ import annotations

import contextlib
import io
import re
import sys
from pathlib import Path

import nbformat
import pytest

from paths import ROOT, chapters, chinese_chapters
from rope_lib.teach.shared.checking import NOT_YET

sys.path.insert(0, str(ROOT / "book" / "_ext"))
import chinese_lines  # noqa: E402
import classroom_markdown  # noqa: E402
import student_notebooks  # noqa: E402


def source(chapter: str) -> str:
    return (ROOT / f"{chapter}.md").read_text()


def solution_lines(chapter: str) -> set[str]:
    return student_notebooks.solution_only_lines(source(chapter))


def tagged(notebook, tag: str) -> list:
    return [cell for cell in notebook.cells if tag in cell.metadata.get("tags", [])]


def untagged(notebook) -> list:
    answer_tags = {student_notebooks.YOUR_TURN_TAG, student_notebooks.CHECK_TAG}
    return [cell for cell in notebook.cells if not answer_tags & set(cell.metadata.get("tags", []))]


def solution_lines_in(notebook, chapter: str) -> list[str]:
    """The lines of the chapter's solutions found in the notebook's cells, the your-turn and check cells aside (they
    hold the function's first line and the check call by design; test_the_answer_cells_are_empty reads them)."""
    lines = {line.strip() for cell in untagged(notebook) for line in cell.source.splitlines()}
    return sorted(line for line in solution_lines(chapter) & lines if len(line) >= SHORTEST)


SHORTEST = 10
"""Solution lines shorter than this ("try:", "else:") are left out of the comparison: the library code a page shows
({literalinclude}, written out in the student edition) has them too."""


def coding_exercises(chapter: str) -> list:
    return [e for e in student_notebooks.exercises_of(source(chapter)) if re.search(r"`check_\w+\(", e.text)]


def made(chapter: str):
    """The student edition student_notebooks.py makes of the chapter today, with the glued values its committed student
    edition shows (running every chapter again would take minutes; test_the_site_offers_each_student_edition_and_binder_opens_it
    checks those values against the book build's executed chapters)."""
    path = ROOT / f"{chapter}.md"
    return student_notebooks.student_notebook(path, student_notebooks.committed_glued_values(path))


@pytest.fixture(scope="module", params=chapters() + chinese_chapters())
def edition(request):
    return request.param, made(request.param)


def test_the_student_edition_holds_no_solution(edition):
    chapter, notebook = edition
    assert len(solution_lines(chapter)) >= 10, f"{chapter}: too few solution lines to tell anything"
    assert not solution_lines_in(notebook, chapter)


def test_a_solution_line_planted_in_the_student_edition_is_found():
    chapter = "book/rope_at_a_glance"
    notebook = made(chapter)
    planted = "    out[0::2] = even * np.cos(a) - odd * np.sin(a)"
    assert planted.strip() in solution_lines(chapter)
    untagged(notebook)[-1].source += "\n" + planted
    assert solution_lines_in(notebook, chapter) == [planted.strip()]


def speaker_notes(chapter: str) -> list[str]:
    """The text of each of the chapter's speaker notes (its markdown cells tagged notes and remove-cell)."""
    import jupytext

    cells = jupytext.reads(source(chapter), fmt="md:myst").cells
    return [c.source for c in cells if c.cell_type == "markdown" and {"notes", "remove-cell"} <= set(c.metadata.get("tags", []))]


def test_the_student_edition_holds_no_speaker_note_and_nothing_the_site_removes(edition):
    """A speaker note may answer the question the teacher is to ask ("Ask: … (answer)"): the student's notebook holds
    none of them, and no other cell the site leaves out."""
    chapter, notebook = edition
    notes = speaker_notes(chapter)
    assert len(notes) >= 5, f"{chapter}: too few speaker notes to tell anything"
    assert not tagged(notebook, classroom_markdown.REMOVED_TAG)
    shown = {cell.source for cell in notebook.cells}
    assert not [note for note in notes if note in shown]


def test_the_student_edition_keeps_every_exercise_statement_and_hint(edition):
    """Each exercise, numbered as the site numbers it, its statement rewritten as plain Markdown in a block quote, and
    each of its hints folded (<details>)."""
    chapter, notebook = edition
    markdown = "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "markdown")
    exercises = student_notebooks.exercises_of(source(chapter))
    assert len(exercises) >= 3
    rewriter = classroom_markdown.Chapter(ROOT / f"{chapter}.md", student_notebooks.edition_of((ROOT / chapter).parent),
                                          student_notebooks.committed_glued_values(ROOT / f"{chapter}.md"))
    number = rewriter.edition.chapters[Path(chapter).name]
    for i, exercise in enumerate(exercises, start=1):
        statement = rewriter.markdown(f":::{{exercise}}\n:label: {exercise.label}\n{exercise.text}\n:::\n")
        assert statement.startswith(f"> **{classroom_markdown.NAMES[rewriter.edition.language]['exercise']} {number}.{i}**")
        assert statement in markdown, f"{chapter} {exercise.label}"
    hints = re.findall(r"^`{3,4}\{admonition\} (Hint|提示)", source(chapter), re.M)
    dropdowns = re.findall(r"^(?:`{3,4}|:{3,4})\{admonition\}.*\n:class: dropdown", student_notebooks.student_source(source(chapter)), re.M)
    assert len(dropdowns) >= len(hints) and markdown.count("<details><summary>") == len(dropdowns)


RAW_MYST = re.compile(r"\{(glue|ref|eq|numref|doc|cite|prf:\w+)[:}]|:::|`{3,}\{|^\s*:(class|label|name|tags|pyobject):|"
                      r"^\s*\([\w.:-]+\)=\s*$|^\$\$\s*$", re.M)
"""MyST that JupyterLab would show raw: a role, a fence of a directive, a directive's option, a label, a $$ block's own
line (a $$ block is written on one line, so that a block quote's `>` cannot enter its TeX)."""


def test_the_student_edition_is_plain_markdown(edition):
    """JupyterLab renders CommonMark and $ math only: no MyST left in a Markdown cell (test_jupyterlab.py looks at the
    rendered cells in a browser)."""
    chapter, notebook = edition
    raw = [(cell.id, m.group(0)) for cell in notebook.cells if cell.cell_type == "markdown" for m in RAW_MYST.finditer(cell.source)]
    assert not raw, f"{chapter}: {raw[:10]}"



@pytest.mark.parametrize("chapter", chinese_chapters())
def test_a_chinese_student_edition_holds_no_line_break_a_browser_shows_as_a_gap(chapter):
    """JupyterLab, like a browser on the site, shows a line break inside a paragraph as a space: the Chinese student
    editions' paragraphs hold none between Chinese characters or next to Chinese punctuation (chinese_lines.py)."""
    notebook = made(chapter)
    broken = [cell.source for cell in notebook.cells
              if cell.cell_type == "markdown" and chinese_lines.join_markdown_lines(cell.source) != cell.source]
    assert not broken, f"{chapter}: {len(broken)} cells, the first: {broken[0][:300]!r}"

def made_up_edition(folder: Path):
    """A book of two numbered chapters and a references.bib in `folder`, as the editions lay theirs out."""
    (folder / "_toc.yml").write_text("format: jb-book\nroot: intro\nparts:\n  - caption: A\n    numbered: 1\n    chapters:\n"
                                     "      - file: first\n      - file: second\n")
    (folder / "_config.yml").write_text("bibtex_bibfiles:\n  - references.bib\n")
    (folder / "references.bib").write_text("@article{su2021roformer, author = {Su, Jianlin and Lu, Yu and Pan, Shengfeng},"
                                           " title = {RoFormer}, year = {2021}}\n@book{strang, author = {Strang, Gilbert},"
                                           " title = {Linear Algebra}, year = {2016}}\n")
    (folder / "intro.md").write_text("# Intro\n")
    (folder / "first.md").write_text("(ch-first)=\n# The first chapter\n\n$$\na\n$$ (first-eq)\n")
    (folder / "second.md").write_text("\n".join([
        "(ch-second)=", "# The second chapter", "", "(sec-goal)=", "## The goal", "",
        "$$", "x = 1", "$$ (second-one)", "", "```{math}", ":label: second-two", "y = 2", "```", "",
        "```{prf:theorem} Big", ":label: second-thm", "Text.", "```", "",
        ":::{table} Speeds", ":name: second-table", "| a |", "| - |", "| 1 |", ":::", "",
        ":::{exercise}", ":label: second-ex", "Do it.", ":::", "", "(no-such-heading)=", "A paragraph, under no heading.", ""]))
    return student_notebooks.edition_of.__wrapped__(folder)


def test_the_rewriting_of_myst(tmp_path):
    """Each construct as the site shows it, on a made-up page of a made-up two-chapter book."""
    edition = made_up_edition(tmp_path)
    rewriter = classroom_markdown.Chapter(tmp_path / "second.md", edition, {"score": {"text/plain": "0.123456"},
                                                                           "count": {"text/plain": "12345"}})
    page = "\n".join([
        "(a-label)=", "# The second chapter", "",
        "The score is {glue:text}`score:.3f` of {glue:text}`count:,`, by {eq}`second-one`, {eq}`second-two` and",
        "{eq}`first-eq` of {ref}`ch-first` and {doc}`first`; see {ref}`the goal <sec-goal>`, {ref}`sec-goal`,",
        "{prf:ref}`second-thm`, {numref}`second-table`, {ref}`second-ex` and {cite}`su2021roformer,strang`.", "",
        "```{admonition} Note", ":class: tip", "A note with", "", "$$", "a = b", "$$ (second-one)", "```", "",
        "```{admonition} Hint", ":class: dropdown", "Think.", "```", "",
        "```{math}", "x = y", "```",
    ])
    assert rewriter.markdown(page) == "\n".join([
        "# 2. The second chapter", "",
        "The score is 0.123 of 12,345, by (2.1), (2.2) and",
        "(1.1) of The first chapter and The first chapter; see the goal, The goal,",
        "Theorem 2.1, Table 2.1, Exercise 2.1 and (Su et al., 2021; Strang, 2016).", "",
        "> **Note**", ">", "> A note with", ">", "> $$a = b \\tag{2.1}$$", "",
        "<details><summary>Hint</summary>", "", "Think.", "", "</details>", "",
        "$$x = y$$",
    ])
    assert rewriter.used == {"score": "0.123456", "count": "12345"}
    assert rewriter.markdown("```{prf:theorem} Big\n:label: second-thm\nText.\n```") == "> **Theorem 2.1** (Big)\n>\n> Text."
    assert rewriter.markdown(":::{exercise}\n:label: second-ex\nDo it.\n:::\n") == "> **Exercise 2.1**\n>\n> Do it."
    report = classroom_markdown.Chapter(tmp_path / "second.md", edition, {"checks": {"text/markdown": "By {eq}`second-one`:\n\n$$\nx\n$$\n"}})
    assert report.markdown("```{glue:md} checks\n:format: myst\n```") == "By (2.1):\n\n$$x$$"
    assert report.used_markdown == {"checks": "By {eq}`second-one`:\n\n$$\nx\n$$\n"}


def test_the_glued_values_come_from_a_build_as_myst_nb_leaves_it(tmp_path):
    """myst-nb takes a hidden glued value (display=False) out of the executed notebook it writes and keeps it in
    <chapter>.glue.json beside it: the values read from a build are both, as myst-nb's own glue extraction leaves them."""
    import json

    from myst_nb.ext.glue import extract_glue_data

    chapter = tmp_path / "page.md"
    chapter.write_text("---\njupytext:\n  text_representation:\n    format_name: myst\nkernelspec:\n  name: python3\n  display_name: Python 3\n---\n\n"
                       "```{code-cell} ipython3\nglue('hidden', 5.0, display=False)\nglue('shown', 7)\n```\n")
    cell = nbformat.v4.new_code_cell("glue('hidden', 5.0, display=False)\nglue('shown', 7)", outputs=[
        nbformat.v4.new_output("display_data", {"application/papermill.record/text/plain": "5.0"},
                               metadata={"scrapbook": {"name": "hidden", "mime_prefix": "application/papermill.record/"}}),
        nbformat.v4.new_output("display_data", {"text/plain": "7"}, metadata={"scrapbook": {"name": "shown"}})])
    notebook = nbformat.v4.new_notebook(cells=[cell])
    glue = extract_glue_data(notebook, [0], None)
    executed = tmp_path / "page.ipynb"
    nbformat.write(notebook, executed)
    assert "hidden" not in classroom_markdown.glued_values(nbformat.read(executed, as_version=4))
    (tmp_path / "page.glue.json").write_text(json.dumps(glue))
    assert student_notebooks.glued_values_of(chapter, executed) == {"hidden": {"text/plain": "5.0"},
                                                                   "shown": {"text/plain": "7"}}


@pytest.mark.parametrize("markup", ["{glue:text}`no_such_value`", "{eq}`no-such-label`", "{cite}`no_such_key`",
                                    "{ref}`no-such-heading`", "{unknown}`role`", "```{unknown}\nbody\n```"])
def test_what_cannot_be_rewritten_stops_the_student_edition(markup, tmp_path):
    """A glued value the chapter did not glue, a label or reference that does not exist, a reference to a label with no
    title to show, a role or directive with no plain-Markdown form: an error naming it, never raw MyST in a student's
    notebook."""
    rewriter = classroom_markdown.Chapter(tmp_path / "second.md", made_up_edition(tmp_path), {})
    with pytest.raises(ValueError, match=r"no_such|no-such|unknown"):
        rewriter.markdown(f"Text with\n\n{markup}\n")


def test_hidden_code_stays_and_is_folded(edition):
    """A cell the site shows without its code (hide-input, remove-input) keeps its code, which makes what the page shows
    (the student edition runs top to bottom), folded in JupyterLab."""
    chapter, notebook = edition
    for cell in notebook.cells:
        if cell.cell_type == "code" and {"hide-input", "remove-input"} & set(cell.metadata.get("tags", [])):
            assert cell.metadata.get("jupyter", {}).get("source_hidden") is True, f"{chapter}: {cell.source[:60]!r}"


def test_each_coding_exercise_gets_a_your_turn_cell_and_a_check_cell(edition):
    chapter, notebook = edition
    coding = coding_exercises(chapter)
    assert coding, f"{chapter} has no coding exercise"
    assert len(tagged(notebook, student_notebooks.YOUR_TURN_TAG)) == len(coding)
    assert len(tagged(notebook, student_notebooks.CHECK_TAG)) == len(coding)
    for i, cell in enumerate(notebook.cells):
        if student_notebooks.YOUR_TURN_TAG in cell.metadata.get("tags", []):
            assert student_notebooks.CHECK_TAG in notebook.cells[i + 1].metadata.get("tags", []), "the check follows"


def test_the_answer_cells_are_empty(edition):
    """The your-turn cell holds `def name(…):` and `...` only; the check cell, the import and the call only."""
    chapter, notebook = edition
    for cell in tagged(notebook, student_notebooks.YOUR_TURN_TAG):
        *head, body = [line for line in cell.source.splitlines() if line]
        assert body in student_notebooks.STUB_BODY.values(), f"{chapter}: {body!r}"
        # the def line, its arguments over several lines where the solution wraps them
        assert re.fullmatch(r"def \w+\([^()]*\):", "\n".join(head)), f"{chapter}: {head!r}"
    for cell in tagged(notebook, student_notebooks.CHECK_TAG):
        for line in filter(None, cell.source.splitlines()):
            assert re.fullmatch(r"from rope_lib\.teach\.exercises import check_\w+|check_(\w+)\(\1, lang=LANG\)", line), f"{chapter}: {line!r}"


def test_each_check_reports_not_yet_on_the_empty_answer(edition):
    """The your-turn cell and the check cell of each coding exercise, run as the student first runs them."""
    chapter, notebook = edition
    lang = student_notebooks.language_of(source(chapter))
    for stub, check in zip(tagged(notebook, student_notebooks.YOUR_TURN_TAG), tagged(notebook, student_notebooks.CHECK_TAG)):
        namespace, printed = {"LANG": lang}, io.StringIO()
        *statements, call = check.source.splitlines()
        with contextlib.redirect_stdout(printed):
            exec(stub.source, namespace)
            exec("\n".join(statements), namespace)
            result = eval(call, namespace)
        assert result is not None and not result, f"{chapter}: {call} → {result!r}"
        assert printed.getvalue().startswith(NOT_YET.in_language(lang)), f"{chapter}: {call} printed {printed.getvalue()!r}"


@pytest.mark.slow
def test_the_site_offers_each_student_edition_and_binder_opens_it(built_book):
    result, html = built_book
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    for chapter in chapters():
        name = f"{chapter}{student_notebooks.SUFFIX}"
        page = (html / f"{chapter}.html").read_text()
        assert re.search(rf'href="(\.\./)*_sources/{re.escape(name)}"', page), f"{chapter}: no download link to {name}"
        assert f"urlpath=lab/tree/{name}" in page, f"{chapter}: the Binder button should open {name}"
        notebook = nbformat.read(html / "_sources" / name, as_version=4)
        assert not solution_lines_in(notebook, chapter)
    for chapter in chapters() + chinese_chapters():
        chinese = chapter.startswith("book/zh/")  # (the Chinese site, copied into zh/, names its pages from book/zh)
        site = html / ("zh/_sources" if chinese else "_sources") / f"{Path(chapter).name if chinese else chapter}{student_notebooks.SUFFIX}"
        built = nbformat.read(site, as_version=4)
        committed = nbformat.read(ROOT / f"{chapter}{student_notebooks.SUFFIX}", as_version=4)
        # the text as shown (a value's last bits may differ from machine to machine; its shown digits may not)
        assert [cell.source for cell in built.cells] == [cell.source for cell in committed.cells], (
            f"{chapter}: the committed student edition is not what the book build makes of the chapter (a number "
            "changed?): run `.venv/bin/python book/_ext/student_notebooks.py` after `make html`")


@pytest.mark.slow
def test_the_student_editions_number_equations_as_the_site(built_book):
    """The equation numbers the student editions show, "(6.3)", are the site's (Sphinx's numfig, per chapter)."""
    result, html = built_book
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    found = 0
    for chapter in chapters():
        page = (html / f"{chapter}.html").read_text()
        numbers = dict(re.findall(r'id="equation-([\w-]+)"[^>]*>\s*<span class="eqno">\(([\d.]+)\)', page))
        edition = student_notebooks.edition_of((ROOT / chapter).parent)
        ours = {label: edition.equations[label].number for label in numbers if label in edition.equations}
        assert ours == numbers, f"{chapter}: (label, the site's number) the student edition numbers otherwise or not at all: " \
                                f"{sorted(set(numbers.items()) - set(ours.items()))}"
        found += len(numbers)
    assert found > 50, f"only {found} numbered equations found on the site's pages"


HUB = "https://hub.example.edu"
"""A teacher's JupyterHub, as `launch_buttons: jupyterhub_url:` in _config.yml names one (empty there by default)."""


def launch_menu(chapter: str, folder) -> dict[str, str]:
    """A chapter page's launch menu, button text → address, as sphinx-book-theme builds it from _config.yml with
    HUB set, and as book_site.py then leaves it."""
    from types import SimpleNamespace

    import yaml
    from jupyter_book.config import yaml_to_sphinx
    from sphinx_book_theme.header_buttons.launch import add_launch_buttons

    import book_site

    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    config["launch_buttons"]["jupyterhub_url"] = HUB
    theme = yaml_to_sphinx(config)[0]["html_theme_options"]  # (the settings of _config.yml's own sections, …)
    provider_url, org, repo = theme["repository_url"].rstrip("/").rsplit("/", 2)
    executed = folder / "jupyter_execute" / f"{chapter}.ipynb"  # the theme copies the executed notebook into _sources
    executed.parent.mkdir(parents=True)
    executed.write_text("{}")
    class Config(dict):  # the theme reads its options as items, book_site the language as an attribute
        language = "en"

    app = SimpleNamespace(
        config=Config(html_theme_options=theme), outdir=str(folder / "html"),
        env=SimpleNamespace(doc2path=lambda name: str(ROOT / f"{name}.md"), metadata={chapter: {"kernelspec": {"name": "python3"}}}),
    )
    context = {"pagename": chapter, "sourcename": f"{chapter}.md", "header_buttons": [], "pathto": lambda name, resource=0: name,
               "github_url": provider_url, "github_user": org, "github_repo": repo}
    add_launch_buttons(app, chapter, "page.html", context, None)
    book_site.offer_the_student_edition(app, chapter, "page.html", context, None)
    return {button["text"]: button.get("url") for button in book_site.buttons_of_group(context, "launch-buttons")}


def test_binder_and_a_jupyterhub_open_the_student_edition(tmp_path):
    """Binder and a teacher's JupyterHub (nbgitpuller clones the
    repository into a folder named after it, and opens the path given) both open book/<chapter>.student.ipynb."""
    from urllib.parse import parse_qs, urlparse

    import yaml

    chapter = "book/rope_2d"
    student = f"{chapter}{student_notebooks.SUFFIX}"
    repository = yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]
    menu = launch_menu(chapter, tmp_path)
    assert menu["Binder"].endswith(f"/{repository['branch']}?urlpath=lab/tree/{student}"), menu["Binder"]
    hub = urlparse(menu["JupyterHub"])
    assert f"{hub.scheme}://{hub.netloc}" == HUB and hub.path == "/hub/user-redirect/git-pull"
    assert parse_qs(hub.query) == {
        "repo": [repository["url"]], "branch": [repository["branch"]],
        "urlpath": [f"lab/tree/{repository['url'].rstrip('/').rsplit('/', 1)[1]}/{student}"],
    }


@pytest.mark.parametrize("edition", student_notebooks.EDITIONS, ids=["en", "zh"])
def test_the_committed_student_editions_are_the_chapters_own(edition):
    """book/<chapter>.student.ipynb and book/zh/<chapter>.student.ipynb are committed (a JupyterHub's clone runs no
    set-up script) and must be what student_notebooks.py makes of the chapter today: run
    `python book/_ext/student_notebooks.py` after an edit."""
    made = {chapter.with_name(chapter.stem + student_notebooks.SUFFIX): chapter for chapter in student_notebooks.chapters_of_the_book(edition)}
    folder = edition if edition != ROOT else ROOT / "book"
    assert made and set(folder.glob(f"*{student_notebooks.SUFFIX}")) == set(made)
    stale = [path.name for path, chapter in made.items() if not current(path, chapter)]
    assert not stale, f"stale student editions {stale}: run `.venv/bin/python book/_ext/student_notebooks.py`"


def current(path, chapter) -> bool:
    """Whether the committed student edition at `path` is what the chapter makes today, with the glued values it shows
    (a value the chapter glues anew, or glues no more, makes it stale too)."""
    try:
        today = student_notebooks.student_notebook(chapter, student_notebooks.committed_glued_values(chapter))
    except ValueError:  # (a glued value it does not hold)
        return False
    return path.read_text() == nbformat.writes(today) + "\n"


def test_an_edited_chapter_makes_its_committed_student_edition_stale():
    chapter = ROOT / "book" / "rope_2d.md"
    committed = chapter.with_name(chapter.stem + student_notebooks.SUFFIX)
    glued = student_notebooks.committed_glued_values(chapter)
    assert current(committed, chapter)
    edited = chapter.read_text().replace("## Exercises", "## Exercises\n\nOne more sentence.", 1)
    assert committed.read_text() != nbformat.writes(student_notebooks.student_notebook(chapter, glued, edited)) + "\n"
    name = next(iter(student_notebooks.committed_glued_values(chapter)))
    with pytest.raises(ValueError, match=name):  # a number the chapter glues that the committed edition does not hold
        student_notebooks.student_notebook(chapter, {key: value for key, value in glued.items() if key != name})
