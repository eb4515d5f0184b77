"""Every chapter with a derivation module checks all of its equations underneath the page: no check on the reading path,
and one collapsed block, "How this page is checked", that holds the report of a removed cell which runs every check."""

import importlib
import pkgutil
import re

import pytest

from paths import ROOT
from rope_lib.teach import derivations

MODULES = [importlib.import_module(f"{derivations.__name__}.{info.name}") for info in pkgutil.iter_modules(derivations.__path__)]
CODE_CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(.*?)^```$", re.M | re.S)
REPORT = re.compile(r'glue\("(\w+)", displayed_equations\.Page\.of\(derivation, lang=LANG\)\.report\(\), display=False\)')
TITLES = {"book": "How this page is checked", "book/zh": "本页如何检验"}


def test_the_derivations_of_the_book_have_modules():
    assert "rope_2d" in {module.__name__.rsplit(".", 1)[-1] for module in MODULES}


def reports(text: str) -> list[tuple[list[str], str]]:
    """(tags, glue key) of each code cell that glues a Page's report."""
    found = []
    for cell in CODE_CELL.findall(text):
        tags = re.findall(r"[\w-]+", cell.split("\n", 1)[0].split(":", 2)[2]) if cell.startswith(":tags:") else []
        found += [(tags, key) for key in REPORT.findall(cell)]
    return found


@pytest.mark.parametrize("book", TITLES)
@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_each_deriving_chapter_checks_in_one_collapsed_block(module, book):
    text = (ROOT / book / module.CHAPTER).read_text()
    name = module.__name__.rsplit(".", 1)[-1]
    assert not re.search(r"page\.(check|summary)\(", text), "no check on the reading path"
    assert f"from rope_lib.teach.derivations import {name} as derivation" in text
    [(tags, key)] = reports(text)
    assert "remove-cell" in tags, "the cell that runs the checks is removed from the page"
    block = f":::{{admonition}} {TITLES[book]}\n:class: dropdown\n```{{glue:md}} {key}\n:format: myst\n```\n:::"
    assert text.count(block) == 1, f"one collapsed block shows the report {key}"


def test_the_rule_catches_a_visible_check():
    text = (ROOT / "book" / "rope_2d.md").read_text()
    planted = text.replace(":tags: [remove-cell]\nfrom rope_lib.teach import displayed_equations", ":tags: [hide-input]\nfrom rope_lib.teach import displayed_equations", 1)
    assert planted != text and "remove-cell" not in reports(planted)[0][0]
