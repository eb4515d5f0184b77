"""The Chinese edition (book/zh/) runs the same computations as the English one: each Chinese page has the same code
cells, in the same order, with the same tags, as its English page, apart from the strings a reader sees (string
literals and comments). So the numbers, figures and checks of the two editions are the same."""

import io
import re
import tokenize

import jupytext
import pytest

from paths import ROOT, pages

MASKED = {tokenize.STRING, tokenize.COMMENT}
"""Tokens whose text a reader sees and a translation changes: string literals (f-strings too) and comments."""

LANGUAGE_SETTING = re.compile(r'^LANG = "(en|zh)"$', re.MULTILINE)
"""Each chapter's first code cell says its language, and every call that shows words passes lang=LANG."""


def chinese_page(page: str) -> str:
    """book/X → book/zh/X."""
    return page.replace("book/", "book/zh/", 1)


def code_shape(source: str) -> list[tuple[int, str]]:
    """The cell's tokens with every string and comment replaced by a placeholder (IPython magics kept as lines)."""
    lines = [("#%" + line) if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines()]
    tokens = tokenize.generate_tokens(io.StringIO("\n".join(lines) + "\n").readline)
    return [(kind, "…" if kind in MASKED else text) for kind, text, *_ in tokens
            if kind not in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER)]


def code_cells(path) -> list:
    return [cell for cell in jupytext.read(path).cells if cell.cell_type == "code"]


def differences(english, chinese) -> list[str]:
    """What differs between two pages' code cells, apart from strings and comments: [] when they agree."""
    found = []
    if len(english) != len(chinese):
        found.append(f"{len(english)} code cells in English, {len(chinese)} in Chinese")
    for number, (en, zh) in enumerate(zip(english, chinese), start=1):
        if en.metadata.get("tags", []) != zh.metadata.get("tags", []):
            found.append(f"code cell {number}: tags {en.metadata.get('tags', [])} ≠ {zh.metadata.get('tags', [])}")
        if code_shape(en.source) != code_shape(zh.source):
            found.append(f"code cell {number} differs beyond strings and comments:\n{en.source}\n---\n{zh.source}")
    return found


@pytest.mark.parametrize("page", pages())
def test_every_page_has_its_chinese_page(page):
    assert (ROOT / f"{chinese_page(page)}.md").exists(), f"{page}.md has no Chinese page {chinese_page(page)}.md"


@pytest.mark.parametrize("page", pages())
def test_chinese_code_cells_are_the_english_ones(page):
    english, chinese = ROOT / f"{page}.md", ROOT / f"{chinese_page(page)}.md"
    if not chinese.exists():
        pytest.fail(f"no Chinese page {chinese}")
    assert differences(code_cells(english), code_cells(chinese)) == []


@pytest.mark.parametrize("page", pages())
def test_each_edition_names_its_language(page):
    english, chinese = code_cells(ROOT / f"{page}.md"), code_cells(ROOT / f"{chinese_page(page)}.md")
    if not english:
        return  # a page without code (the references)
    # the setting sits in the set-up: the first code cell, or the hidden cell after it that holds the build's lines
    assert LANGUAGE_SETTING.findall("\n".join(cell.source for cell in english[:2])) == ["en"]
    assert LANGUAGE_SETTING.findall("\n".join(cell.source for cell in chinese[:2])) == ["zh"]


def test_a_changed_number_is_caught():
    """The comparison sees a changed number, a renamed variable and a dropped cell, but not a translated string."""
    page = jupytext.reads('```{code-cell} ipython3\nx = 10000  # base\nprint("base", x)\n```\n', fmt="md:myst")
    cells = [c for c in page.cells if c.cell_type == "code"]
    translated = jupytext.reads('```{code-cell} ipython3\nx = 10000  # 基数\nprint("基数", x)\n```\n', fmt="md:myst")
    assert differences(cells, [c for c in translated.cells if c.cell_type == "code"]) == []
    for wrong in ("x = 1000  # base\nprint('base', x)", "y = 10000\nprint('base', y)"):
        changed = jupytext.reads(f"```{{code-cell}} ipython3\n{wrong}\n```\n", fmt="md:myst")
        assert differences(cells, [c for c in changed.cells if c.cell_type == "code"]) != []
    assert differences(cells, []) != []
