"""A visible code cell shows the idea it is there for: a cell whose only job is to glue numbers into the prose or to
assert a claim hides its input (tag `hide-input` or `remove-input`); the assertions still run."""

import ast
import re

import jupytext
import pytest

from paths import ROOT, chapters, chinese_chapters

HIDDEN = {"hide-input", "remove-input", "hide-cell", "remove-cell"}
"""Tags under which a code cell's source is not shown on the page."""


def _is_glue(node: ast.stmt) -> bool:
    """`glue(...)` or `something.glue(...)` as a statement."""
    if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)):
        return False
    function = node.value.func
    return (isinstance(function, ast.Name) and function.id == "glue") or (isinstance(function, ast.Attribute) and function.attr == "glue")


def _walk(statements):
    """(asserts or glues, statements that show something) among `statements` and the bodies nested in them."""
    checks = shows = 0
    for node in statements:
        if isinstance(node, ast.Assert) or _is_glue(node):
            checks += 1
        elif isinstance(node, ast.Expr):
            shows += 1  # a displayed value, a figure, a print
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            shows += 1  # the code itself is the idea: a definition the reader reads
        else:
            for field in ("body", "orelse", "finalbody", "handlers"):
                inner_checks, inner_shows = _walk(getattr(node, field, []) or [])
                checks, shows = checks + inner_checks, shows + inner_shows
            for case in getattr(node, "cases", []) or []:
                inner_checks, inner_shows = _walk(case.body)
                checks, shows = checks + inner_checks, shows + inner_shows
        if isinstance(node, ast.ExceptHandler):
            inner_checks, inner_shows = _walk(node.body)
            checks, shows = checks + inner_checks, shows + inner_shows
    return checks, shows


def glue_or_assert_only(source: str) -> bool:
    """The cell asserts or glues, and shows nothing else: no displayed value, figure, print or definition."""
    lines = [line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))]  # IPython magics
    checks, shows = _walk(ast.parse("\n".join(lines)).body)
    return checks > 0 and shows == 0


def offending_cells(path) -> list[str]:
    """The first line of each visible code cell of a chapter that only glues or asserts."""
    notebook = jupytext.read(path)
    return [
        cell.source.splitlines()[0] if cell.source else "<empty cell>"
        for cell in notebook.cells
        if cell.cell_type == "code" and not HIDDEN & set(cell.metadata.get("tags", [])) and glue_or_assert_only(cell.source)
    ]


@pytest.mark.parametrize("chapter", chapters())
def test_no_visible_cell_only_glues_or_asserts(chapter):
    offending = offending_cells(ROOT / f"{chapter}.md")
    assert not offending, f"{chapter}: visible cells that only glue or assert; tag them hide-input: {offending}"


@pytest.mark.parametrize(
    ("source", "only"),
    [
        ("x = 1\nassert x == 1", True),
        ("gap = 0.0\nglue('gap', gap, display=False)", True),
        ("with torch.no_grad():\n    y = f(x)\n    assert y.shape == (2,)\nmyst_nb.glue('y', y)", True),
        ("for m in range(3):\n    assert m >= 0", True),
        ("x = 1\nassert x == 1\nx", False),  # the value is shown
        ("plot(x)\nglue('x', x, display=False)", False),  # a figure is shown
        ("def f(x):\n    return x\nassert f(1) == 1", False),  # the definition is the idea
        ("import numpy as np", False),  # set-up: neither glue nor assert
        ("for m in range(3):\n    print(m)\n    assert m >= 0", False),
    ],
)
def test_the_rule_tells_glue_or_assert_only_cells(source, only):
    assert glue_or_assert_only(source) is only


def test_the_rule_catches_a_planted_cell(tmp_path):
    """A chapter with one visible assert-only cell is caught; the same cell under hide-input passes."""
    header = (ROOT / "book/rope_nd.md").read_text().split("---\n", 2)[1]
    cell = "```{code-cell} ipython3\n%s\ngap = 1e-12\nassert gap < 1e-9\nglue('gap', gap, display=False)\n```\n"
    planted = tmp_path / "planted.md"
    planted.write_text(f"---\n{header}---\n\n# A page\n\n" + cell % "")
    assert offending_cells(planted) == ["gap = 1e-12"]
    planted.write_text(f"---\n{header}---\n\n# A page\n\n" + cell % ":tags: [hide-input]")
    assert offending_cells(planted) == []


BUILD_LINE = re.compile(r"\bglue\(|^\s*LANG\s*=|\bchecked_by\b|\bSourceListing\b|^\s*from myst_nb import|^\s*import myst_nb")
"""A line a reader would not type: gluing a number into the prose, the edition's language switch, listing plumbing,
the decorator of the library's checks. Such lines sit in a removed or hidden cell."""


def build_lines(path) -> list[str]:
    """The build lines of a page's visible code cells (tags neither hide nor remove their input)."""
    notebook = jupytext.read(path)
    return [
        line.strip()
        for cell in notebook.cells
        if cell.cell_type == "code" and not HIDDEN & set(cell.metadata.get("tags", []))
        for line in cell.source.splitlines()
        if BUILD_LINE.search(line)
    ]


@pytest.mark.parametrize("chapter", chapters() + chinese_chapters())
def test_no_visible_cell_holds_a_build_line(chapter):
    found = build_lines(ROOT / f"{chapter}.md")
    assert not found, f"{chapter}: visible code cells hold build lines; move them to a remove-cell or remove-input cell: {found}"


def test_the_build_line_rule_catches_each_kind(tmp_path):
    header = (ROOT / "book/rope_nd.md").read_text().split("---\n", 2)[1]
    lines = ['LANG = "en"', "from myst_nb import glue", 'glue("x", 1, display=False)', "SourceListing(f)", "@checked_by(g)"]
    planted = tmp_path / "planted.md"
    planted.write_text(f"---\n{header}---\n\n# A page\n\n```{{code-cell}} ipython3\nx = 1\n" + "\n".join(lines) + "\n```\n")
    assert build_lines(planted) == lines
    planted.write_text(f"---\n{header}---\n\n# A page\n\n```{{code-cell}} ipython3\n:tags: [remove-cell]\n" + "\n".join(lines) + "\n```\n")
    assert build_lines(planted) == []
