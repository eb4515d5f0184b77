"""Run each chapter as a student would in Jupyter, in both editions at once: the chapter (the .md opened through
jupytext, solutions included) and its student edition (the committed book/<chapter>.student.ipynb that Binder and
a JupyterHub open, which book/_ext/student_notebooks.py writes); execute every cell with nbclient, check that
interactive figures were built as live widgets, and count the student edition's auto-checks that answered NOT YET
on the empty answers.

Run by tests/book_site/test_notebook_environment.py with the Python of a fresh environment.
Usage: python run_chapters_as_notebooks.py CHAPTER.md [CHAPTER.md ...]
"""

import asyncio
import sys
from pathlib import Path

import jupytext
import nbclient
import nbformat

from rope_lib.teach.shared.checking import NOT_YET

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "book" / "_ext"))
import student_notebooks  # noqa: E402

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def live_widgets(notebook) -> int:
    return sum(WIDGET_VIEW in output.get("data", {}) for cell in notebook.cells for output in cell.get("outputs", []))


def checks_not_yet(notebook) -> int:
    """The check cells that printed NOT YET, in either edition's language."""
    return sum(
        any(words in output.get("text", "") for words in (NOT_YET.en, NOT_YET.zh))
        for cell in notebook.cells if student_notebooks.CHECK_TAG in cell.metadata.get("tags", [])
        for output in cell.get("outputs", [])
    )


async def run_both(path: Path) -> tuple:
    """The two editions in two kernels side by side, in the chapter's folder as Jupyter runs them."""
    chapter = jupytext.read(path)
    student = nbformat.read(path.with_name(path.stem + student_notebooks.SUFFIX), as_version=4)  # the committed one
    resources = {"metadata": {"path": str(path.parent)}}
    await asyncio.gather(*(nbclient.NotebookClient(notebook, timeout=900, kernel_name="python3", resources=resources).async_execute()
                           for notebook in (chapter, student)))
    return chapter, student


if __name__ == "__main__":
    for name in sys.argv[1:]:
        chapter, student = asyncio.run(run_both(Path(name)))
        print(f"{name}: executed, {live_widgets(chapter)} live widgets")
        print(f"{name} student edition: executed, {live_widgets(student)} live widgets, {checks_not_yet(student)} checks NOT YET")
