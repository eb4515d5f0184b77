"""Every chapter with a derivation module checks all of its equations underneath the page: no check on the reading path,
and one collapsed block, "How this page is checked", that holds the report of a removed cell which runs every check."""

import importlib
import pkgutil
import re

import pytest

from paths import ROOT
import rope_lib.teach
from checked_pages import derivation_name


def derivations() -> list:
    """The derivation of every chapter that has one: a chapter's module with a CHECKS table, or the `derivation` module
    of a chapter that is a package."""
    found = []
    for info in pkgutil.iter_modules(rope_lib.teach.__path__):
        module = importlib.import_module(f"rope_lib.teach.{info.name}")
        module = getattr(module, "derivation", module)
        if hasattr(module, "CHECKS"):
            found.append(module)
    return found


MODULES = derivations()
CODE_CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(.*?)^```$", re.M | re.S)
REPORT = re.compile(r'glue\("(\w+)", displayed_equations\.Page\.of\([\w.]+, lang=LANG\)\.report\(\), display=False\)')
TITLES = {"book": "How this page is checked", "book/zh": "本页如何检验"}


def test_the_derivations_of_the_book_have_modules():
    assert {"rope_2d", "rope_nd.derivation"} <= {derivation_name(module) for module in MODULES}


def reports(text: str) -> list[tuple[list[str], str]]:
    """(tags, glue key) of each code cell that glues a Page's report."""
    found = []
    for cell in CODE_CELL.findall(text):
        tags = re.findall(r"[\w-]+", cell.split("\n", 1)[0].split(":", 2)[2]) if cell.startswith(":tags:") else []
        found += [(tags, key) for key in REPORT.findall(cell)]
    return found


@pytest.mark.parametrize("book", TITLES)
@pytest.mark.parametrize("module", MODULES, ids=derivation_name)
def test_each_deriving_chapter_checks_in_one_collapsed_block(module, book):
    text = (ROOT / book / module.CHAPTER).read_text()
    assert not re.search(r"page\.(check|summary)\(", text), "no check on the reading path"
    assert f"displayed_equations.Page.of({derivation_name(module)}, lang=LANG)" in text
    [(tags, key)] = reports(text)
    assert "remove-cell" in tags, "the cell that runs the checks is removed from the page"
    block = f":::{{admonition}} {TITLES[book]}\n:class: dropdown\n```{{glue:md}} {key}\n:format: myst\n```\n:::"
    assert text.count(block) == 1, f"one collapsed block shows the report {key}"


def test_the_rule_catches_a_visible_check():
    text = (ROOT / "book" / "rope_2d.md").read_text()
    planted = text.replace(":tags: [remove-cell]\nfrom rope_lib.teach.shared import displayed_equations", ":tags: [hide-input]\nfrom rope_lib.teach.shared import displayed_equations", 1)
    assert planted != text and "remove-cell" not in reports(planted)[0][0]
