"""Run each chapter as a student would in Jupyter: open the .md through jupytext, execute
every cell with nbclient, and check that interactive figures were built as live widgets.

Run by tests/book_site/test_notebook_environment.py with the Python of a fresh environment.
Usage: python run_chapters_as_notebooks.py CHAPTER.md [CHAPTER.md ...]
"""

import sys
from pathlib import Path

import jupytext
import nbclient

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def run(path: Path) -> int:
    notebook = jupytext.read(path)
    nbclient.NotebookClient(notebook, timeout=900, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
    return sum(WIDGET_VIEW in output.get("data", {}) for cell in notebook.cells for output in cell.get("outputs", []))


if __name__ == "__main__":
    for name in sys.argv[1:]:
        widgets = run(Path(name))
        print(f"{name}: executed, {widgets} live widgets")
