"""The student edition of each chapter: the chapter's notebook without the solutions of its exercises.

A chapter's exercises sit in its "## Exercises" section ("## 练习" in the Chinese edition), each an `{exercise}` block
followed by its solution between `:::{solution-start} <label>` and `:::{solution-end}`
(text, code cells, and the hidden cells that check a worked solution's steps). The
student edition drops every solution block. A coding exercise (one whose statement
names an auto-check, `check_<name>(`) gets in its place an empty "your turn" cell
holding a stub of each checked function, and a cell that runs the check on it; on the
stub the check reports NOT YET. The cells the site leaves out (tagged remove-cell: the
teacher's speaker notes, which may answer the question the teacher is to ask, and cells
that only glue a number into the text) are left out too; a cell the site shows without
its code keeps its code, folded. The code of the chapter stays as it is, so the student
edition runs top to bottom as the chapter does; its Markdown is rewritten as plain
Markdown (classroom_markdown.py), with the values the executed chapter glued filled in,
so that JupyterLab shows it as the site does with no extension installed (a
JupyterHub's nbgitpuller clone runs no set-up script).

Loaded by Jupyter Book as a local Sphinx extension, it writes `<chapter>.student.ipynb`
beside each executed notebook in the site's `_sources` (book_site.py offers both in
the download menu). Run as a script it writes them beside the chapters of both
editions (book/ and book/zh/), where they are committed, so that Binder and a
JupyterHub open them:

    .venv/bin/python book/_ext/student_notebooks.py [OUTPUT_FOLDER] [--chapter book/<chapter>.md] [--jobs N]

The glued values come from the book build's executed chapter when its code is the
chapter's today (after `make html`), else the chapter is run.

The check cell passes the chapter's language (`lang=LANG`, set in its first code
cell), so a Chinese student reads the check's hints in Chinese.
"""

from __future__ import annotations

import functools
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import classroom_markdown

SUFFIX = ".student.ipynb"
"""A chapter's student edition is `<chapter>.student.ipynb`."""

YOUR_TURN_TAG = "your-turn"
CHECK_TAG = "check-your-answer"
"""The tags of the two cells that replace a coding exercise's solution."""

STUB_BODY = {"en": "    ...  # your code here", "zh": "    ...  # 在这里写你的代码"}

EXERCISES_HEADINGS = ("## Exercises", "## 练习")
"""The heading of a chapter's exercises section, in each edition."""
LANGUAGE = re.compile(r'^LANG = "(en|zh)"$', re.M)
"""A chapter's language, set in its first code cell."""

EXERCISE = re.compile(r":::\{exercise\}\n:label: ([\w-]+)\n(.*?)\n:::\n", re.S)


@dataclass(frozen=True)
class Exercise:
    label: str
    text: str
    """The statement, hint dropdowns included."""
    solution_block: str
    """The whole solution, from `:::{solution-start} <label>` to the `:::` closing `:::{solution-end}`; "" when none."""

    @property
    def solution(self) -> str:
        """The solution's content: the block less its opening directive and its `:::{solution-end}`."""
        body = re.sub(r"\A:::\{solution-start\}.*?\n:::\n", "", self.solution_block, flags=re.S)
        return re.sub(r":::\{solution-end\}\n:::\n?\Z", "", body)

    @property
    def checked(self) -> list[str]:
        """The functions the student writes that an auto-check tests: `check_<name>(` in the statement."""
        return list(dict.fromkeys(re.findall(r"`check_(\w+)\(", self.text)))

    def stub(self, name: str, lang: str = "en") -> str:
        """`def name(<the solution's arguments>):` with an empty body."""
        found = re.search(rf"^def {name}\((.*?)\):", self.solution, re.M | re.S)
        if found is None:
            raise ValueError(f"exercise {self.label}: its solution defines no {name}(…) to take the stub's arguments from")
        return f"def {name}({found.group(1)}):\n{STUB_BODY[lang]}"


def split_at_exercises(source: str) -> tuple[str, str, str | None]:
    """(what comes before the exercises section, its heading, the section); the section is None when there is none."""
    for heading in EXERCISES_HEADINGS:
        if heading in source:
            head, part = source.split(heading, 1)
            return head, heading, part
    return source, "", None


def language_of(source: str) -> str:
    """The chapter's language, from its `LANG = "…"` line; English where it has none."""
    found = LANGUAGE.search(source)
    return found.group(1) if found else "en"


def exercises_of(source: str) -> list[Exercise]:
    """Every exercise of a chapter's MyST source, in order, from its "## Exercises" section."""
    part = split_at_exercises(source)[2] or ""
    found = []
    for match in EXERCISE.finditer(part):
        label = match.group(1)
        solution = re.search(rf":::\{{solution-start\}} {re.escape(label)}\n.*?:::\{{solution-end\}}\n:::\n?", part, re.S)
        found.append(Exercise(label, match.group(2), solution.group(0) if solution else ""))
    return found


SOLUTION_MARKUP = re.compile(r"^(```|:::|:class:|:tags:|\+\+\+)")
"""Lines of a solution that are its directives, not its content."""


def solution_only_lines(source: str) -> set[str]:
    """The lines that only the solutions of a chapter's MyST source hold, stripped: every line of a solution block,
    less its markup and the lines found outside every solution block. No edition without the solutions (the student
    notebook, the PDF) may show one; the tests look for them there."""
    blocks = [exercise.solution_block for exercise in exercises_of(source)]
    outside = source
    for block in blocks:
        outside = outside.replace(block, "")
    elsewhere = {line.strip() for line in outside.splitlines()}
    return {line.strip() for block in blocks for line in block.splitlines()
            if line.strip() and not SOLUTION_MARKUP.match(line.strip())} - elsewhere


def code_cell(tag: str, code: str) -> str:
    return f"```{{code-cell}} ipython3\n:tags: [{tag}]\n\n{code}\n```\n"


def your_turn(exercise: Exercise, lang: str = "en", has_lang: bool = False) -> str:
    """What replaces the solution: for a coding exercise, the stub cell and the check cell; otherwise nothing. The
    check is told the chapter's language when the chapter names it (`has_lang`)."""
    if not exercise.checked:
        return ""
    stubs = "\n\n\n".join(exercise.stub(name, lang) for name in exercise.checked)
    imports = "\n".join(f"from rope_lib.teach.exercises import check_{name}" for name in exercise.checked)
    in_language = ", lang=LANG" if has_lang else ""
    calls = "\n".join(f"check_{name}({name}{in_language})" for name in exercise.checked)
    return code_cell(YOUR_TURN_TAG, stubs) + "\n" + code_cell(CHECK_TAG, f"{imports}\n\n{calls}")


def student_source(source: str) -> str:
    """The chapter's MyST source with each solution replaced by what the student fills in."""
    head, heading, exercises_part = split_at_exercises(source)
    if exercises_part is None:
        return source
    lang, has_lang = language_of(source), LANGUAGE.search(source) is not None
    for exercise in exercises_of(source):
        if exercise.solution_block:
            exercises_part = exercises_part.replace(exercise.solution_block, your_turn(exercise, lang, has_lang), 1)
    return head + heading + exercises_part


HIDDEN_INPUT_TAGS = {"hide-input", "remove-input", "hide-cell"}
HIDDEN_OUTPUT_TAGS = {"hide-output", "remove-output", "hide-cell"}
"""A code cell the site shows without its code (or folded) keeps its code, folded in JupyterLab (`jupyter.source_hidden`):
the student edition must run top to bottom, and the code makes the output the page shows. Likewise for outputs."""

METADATA_KEY = "student_edition"
"""The notebook metadata under which the student edition records the glued values its text shows (`glued`: name →
text/plain), so that a test can rebuild the edition from the chapter without running the chapter again."""


@functools.lru_cache(maxsize=None)
def edition_of(folder: Path):
    """The labels and references of the edition that holds a chapter's folder (book/ or book/zh/)."""
    root = folder if (folder / "_toc.yml").is_file() else folder.parent
    return classroom_markdown.edition_of(root, "zh" if root.name == "zh" else "en")


def executed_path(chapter: Path) -> Path:
    """Where a book build (`make html`) leaves the chapter executed: _build/jupyter_execute/book/<chapter>.ipynb, and
    _build/zh/_build/jupyter_execute/<chapter>.ipynb for the Chinese edition."""
    repository = EDITIONS[0]
    if chapter.parent.name == "zh":
        return repository / "_build" / "zh" / "_build" / "jupyter_execute" / f"{chapter.stem}.ipynb"
    return repository / "_build" / "jupyter_execute" / "book" / f"{chapter.stem}.ipynb"


def code_of(notebook) -> list[str]:
    return [cell.source for cell in notebook.cells if cell.cell_type == "code"]


def glued_values_of(chapter: Path, executed: Path | None = None, verbose: bool = False) -> dict[str, dict[str, str]]:
    """The values the chapter's code glues. From `executed` (an executed notebook of the chapter) when given; else from
    the book build's (executed_path) when its code is the chapter's code today; else the chapter is run here (nbclient,
    in its folder, as the book build runs it)."""
    import jupytext
    import nbformat

    notebook = jupytext.read(chapter, fmt="md:myst")
    candidates = [executed] if executed is not None else [executed_path(chapter)]
    for path in candidates:
        if path is not None and path.is_file():
            done = nbformat.read(path, as_version=4)
            if executed is not None or code_of(done) == code_of(notebook):
                if verbose:
                    print(f"  glued values of {chapter.name} from {path}")
                return classroom_markdown.glued_values(done) | classroom_markdown.built_glue(path)
    from nbclient import NotebookClient

    if verbose:
        print(f"  running {chapter} for its glued values ...", flush=True)
    NotebookClient(notebook, timeout=1800, kernel_name="python3", resources={"metadata": {"path": str(chapter.parent)}}).execute()
    return classroom_markdown.glued_values(notebook)


def student_notebook(chapter: Path, glued: dict[str, dict[str, str]] | None = None, source: str | None = None):
    """The student edition of a chapter (a MyST notebook .md), as an nbformat notebook: the chapter less its solutions and
    the cells the site leaves out, its Markdown rewritten as plain Markdown (classroom_markdown.py) with the values in
    `glued` (name → its output, MIME type → data; glued_values_of(chapter) when None). `source` stands for the
    chapter's text where given (a test's edit)."""
    import jupytext

    if glued is None:
        glued = glued_values_of(chapter)
    rewriter = classroom_markdown.Chapter(chapter, edition_of(chapter.parent.resolve()), glued)
    notebook = jupytext.reads(student_source(chapter.read_text() if source is None else source), fmt="md:myst")
    notebook.cells = [cell for cell in notebook.cells if classroom_markdown.on_the_page(cell)]
    for number, cell in enumerate(notebook.cells):  # ids from the order, not random: the same source, the same file
        cell["id"] = f"{chapter.stem}-{number}"
        tags = set(cell.metadata.get("tags", []))
        if cell.cell_type == "markdown":
            cell.source = rewriter.markdown(cell.source)
            if rewriter.attachments:
                cell["attachments"] = rewriter.attachments
        elif cell.cell_type == "code":
            if tags & HIDDEN_INPUT_TAGS:
                cell.metadata.setdefault("jupyter", {})["source_hidden"] = True
            if tags & HIDDEN_OUTPUT_TAGS:
                cell.metadata.setdefault("jupyter", {})["outputs_hidden"] = True
    notebook.cells = [cell for cell in notebook.cells if cell.cell_type != "markdown" or cell.source.strip()]
    notebook.metadata[METADATA_KEY] = {"glued": dict(sorted(rewriter.used.items()))}
    if rewriter.used_markdown:
        notebook.metadata[METADATA_KEY]["glued_markdown"] = dict(sorted(rewriter.used_markdown.items()))
    return notebook


def committed_glued_values(chapter: Path) -> dict[str, dict[str, str]]:
    """The glued values the committed student edition of the chapter shows: the numbers it records (METADATA_KEY) and
    the Markdown it records (`glued_markdown`), and the figures attached to its cells."""
    import nbformat

    committed = nbformat.read(chapter.with_name(chapter.stem + SUFFIX), as_version=4)
    recorded = committed.metadata.get(METADATA_KEY, {})
    values = {name: {"text/plain": text} for name, text in recorded.get("glued", {}).items()}
    for name, markdown in recorded.get("glued_markdown", {}).items():
        values.setdefault(name, {})["text/markdown"] = markdown
    for cell in committed.cells:
        for file_name, bundle in cell.get("attachments", {}).items():
            values.setdefault(file_name.rsplit(".", 1)[0], {}).update(bundle)
    return values


def write_student_notebook(chapter: Path, target: Path, glued: dict[str, dict[str, str]] | None = None) -> None:
    import nbformat

    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(student_notebook(chapter, glued), target)


def has_exercises(chapter: Path) -> bool:
    return chapter.suffix == ".md" and bool(exercises_of(chapter.read_text()))


def chapters_of_the_book(root: Path) -> list[Path]:
    """The chapter sources of _toc.yml's parts that have exercises, in order."""
    files = re.findall(r"^\s*- file: (\S+)", (root / "_toc.yml").read_text().split("parts:", 1)[1], re.M)
    return [root / f"{name}.md" for name in files if (root / f"{name}.md").is_file() and has_exercises(root / f"{name}.md")]


# ---- the Sphinx extension ----------------------------------------------------------------------


def student_notebook_name(docname: str) -> str:
    return f"{docname}{SUFFIX}"


def offers_a_student_edition(app, docname: str) -> bool:
    return has_exercises(Path(app.env.doc2path(docname)))


def write_student_notebooks(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    for docname in sorted(app.env.found_docs):
        if offers_a_student_edition(app, docname):
            chapter = Path(app.env.doc2path(docname))
            executed = Path(app.outdir).parent / "jupyter_execute" / f"{docname}.ipynb"  # myst-nb's executed notebook
            target = Path(app.outdir) / "_sources" / student_notebook_name(docname)
            write_student_notebook(chapter, target, glued_values_of(chapter, executed if executed.is_file() else None))


def setup(app):
    app.connect("build-finished", write_student_notebooks)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


EDITIONS = (Path(__file__).resolve().parents[2], Path(__file__).resolve().parents[1] / "zh")
"""The folders holding each edition's _toc.yml: the repository root (English) and book/zh (Chinese)."""


def main(arguments: list[str]) -> None:
    import argparse
    from concurrent.futures import ProcessPoolExecutor

    parser = argparse.ArgumentParser(description="Write the student edition of every chapter with exercises, both editions.")
    parser.add_argument("output", nargs="?", type=Path, help="write them under this folder (default: beside the chapters)")
    parser.add_argument("--chapter", dest="chapters", action="append", default=[], type=Path,
                        help="only this chapter (book/<chapter>.md or book/zh/<chapter>.md); may be repeated")
    parser.add_argument("--jobs", type=int, default=1, help="run this many chapters at once (default 1)")
    options = parser.parse_args(arguments)
    if options.jobs < 1:
        parser.error(f"--jobs must be at least 1, got {options.jobs}")
    root = EDITIONS[0]
    wanted = {path.resolve() for path in options.chapters}
    todo = [chapter for edition in EDITIONS for chapter in chapters_of_the_book(edition) if not wanted or chapter.resolve() in wanted]
    if wanted - {chapter.resolve() for chapter in todo}:
        parser.error(f"--chapter names no chapter with exercises: {sorted(map(str, wanted - {c.resolve() for c in todo}))}")
    failed = []
    with ProcessPoolExecutor(options.jobs) as pool:
        for chapter, future in [(chapter, pool.submit(verbose_glued_values_of, chapter)) for chapter in todo]:
            folder = chapter.parent if options.output is None else options.output / chapter.parent.relative_to(root)
            try:
                write_student_notebook(chapter, folder / f"{chapter.stem}{SUFFIX}", future.result())
            except Exception as error:  # the others are still written; the run fails at the end
                failed.append(f"{chapter.relative_to(root)}: {type(error).__name__}: {error}")
                print(f"FAILED {failed[-1]}", flush=True)
                continue
            print(folder / f"{chapter.stem}{SUFFIX}", flush=True)
    if failed:
        sys.exit("student editions not written:\n" + "\n".join(failed))


def verbose_glued_values_of(chapter: Path) -> dict[str, dict[str, str]]:
    return glued_values_of(chapter, verbose=True)


if __name__ == "__main__":
    main(sys.argv[1:])
