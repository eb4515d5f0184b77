"""Every chapter with a derivation module checks each of its equations once, right below the equation."""

import importlib
import pkgutil
import re

import pytest

from paths import ROOT
from rope_lib.teach import derivations
from rope_lib.teach.displayed_equations import page_equations

CHECK = re.compile(r"""page\.check\(\s*["']([\w-]+)["']\s*\)""")
CODE_CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(.*?)^```$", re.M | re.S)

MODULES = [importlib.import_module(f"{derivations.__name__}.{info.name}") for info in pkgutil.iter_modules(derivations.__path__)]


def checks_in(text: str) -> list[str]:
    return [label for cell in CODE_CELL.findall(text) for label in CHECK.findall(cell)]


def test_the_derivations_of_the_book_have_modules():
    assert "rope_2d" in {module.__name__.rsplit(".", 1)[-1] for module in MODULES}


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_each_checked_equation_has_one_check_cell_below_it(module):
    text = (ROOT / "book" / module.CHAPTER).read_text()
    prose = CODE_CELL.sub("", text)  # a code cell may build LaTeX of its own
    assert prose.count("$$") == 2 * len(page_equations(ROOT / "book" / module.CHAPTER)), "every $$ … $$ block is labelled"
    checked = checks_in(text)
    assert sorted(checked) == sorted(module.CHECKS), (
        f"checks missing: {sorted(set(module.CHECKS) - set(checked))}; cells of no checked equation: {sorted(set(checked) - set(module.CHECKS))}"
    )
    assert len(checked) == len(set(checked)), "each equation is checked by one cell"
    for label in checked:
        assert text.index(f'page.check("{label}")') > text.index(f"$$ ({label})"), f"the check of {label} comes before its equation"


def test_the_rule_catches_a_missing_check():
    module = next(m for m in MODULES if m.CHAPTER == "rope_2d.md")
    text = (ROOT / "book" / module.CHAPTER).read_text().replace('page.check("rope2d-step-euler")', "pass", 1)
    assert sorted(checks_in(text)) != sorted(module.CHECKS)
