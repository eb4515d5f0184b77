"""Every chapter has the parts a reader relies on, and uses only library code that the tests exercise."""

import functools
import importlib
import inspect
import pkgutil
import re
import sys

import pytest

import rope_lib
from paths import ROOT, chapters, chinese_chapters

SECTIONS = {
    "en": ("```{admonition} After this chapter you can", "## Summary", "## Exercises", "../rope_lib/"),
    "zh": ("```{admonition} 学完本章，你将能够", "## 小结", "## 练习", "../../rope_lib/"),
}
"""Per edition: the objectives' title, the summary's and the exercises' headings, and the library seen from a page."""


def language(chapter: str) -> str:
    return "zh" if chapter.startswith("book/zh/") else "en"

def code_cells(text: str) -> list[str]:
    return re.findall(r"```\{code-cell\}[^\n]*\n(.*?)```", text, re.S)


def public_library_names() -> set[str]:
    """Functions and classes defined in rope_lib's own modules, by name."""
    names = set()
    for info in pkgutil.walk_packages(rope_lib.__path__, "rope_lib."):
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if not name.startswith("_") and (inspect.isfunction(obj) or inspect.isclass(obj)) and obj.__module__ == info.name:
                names.add(name)
    return names


def library_tests_text() -> str:
    return "\n".join(p.read_text() for p in (ROOT / "tests").glob("test_*.py"))


@pytest.mark.parametrize("chapter", chapters() + chinese_chapters())
def test_chapter_has_objectives_summary_and_exercises(chapter):
    text = (ROOT / f"{chapter}.md").read_text()
    objectives, summary, exercises, _ = SECTIONS[language(chapter)]
    assert text.startswith("---\njupytext:"), "a jupytext header, so Jupyter opens the chapter as a notebook"
    assert re.search(r"^\(ch-[\w-]+\)=\n# ", text, re.M), "a (ch-…)= label above the title"
    assert objectives in text, "learning objectives at the top"
    assert re.search(rf"^{summary}$", text, re.M), "a Summary section"
    exercises_part = text.split(exercises, 1)
    assert len(exercises_part) == 2, "an Exercises section"
    labels = re.findall(r":::\{exercise\}\n:label: ([\w-]+)", exercises_part[1])
    assert len(labels) >= 3, f"at least three exercises, found {labels}"
    coding = 0
    for label in labels:
        solution = re.search(rf":::\{{solution-start\}} {re.escape(label)}\n:class: dropdown\n:::\n(.*?):::\{{solution-end\}}", exercises_part[1], re.S)
        assert solution, f"exercise {label} needs a hidden solution (solution-start with :class: dropdown)"
        coding += bool(code_cells(solution.group(1)))
    assert coding >= 1, "at least one coding exercise with a solution that runs"


@pytest.mark.parametrize("chapter", chapters() + chinese_chapters())
def test_chapter_cites_labels_its_formulas_and_shows_library_source(chapter):
    text = (ROOT / f"{chapter}.md").read_text()
    labels = re.findall(r"^\$\$ \(([\w-]+)\)$", text, re.M)
    assert labels, "labelled display equations"
    assert any(f"{{eq}}`{label}`" in text for label in labels), "equations referenced with {eq}"
    assert "{cite}`" in text, "a citation to book/references.bib"
    assert "{literalinclude} " + SECTIONS[language(chapter)][3] in text, "library code shown from its source, not retyped"


EQUATION_IN_PARENTHESES = re.compile(r"[(（]\{eq\}`[\w-]+`[)）]")
"""An {eq} reference inside parentheses: the role prints the number in its own, so the page would show ((4.10))."""


@pytest.mark.parametrize("chapter", chapters() + chinese_chapters())
def test_no_equation_number_is_put_in_parentheses_twice(chapter):
    assert EQUATION_IN_PARENTHESES.search("the real part ({eq}`cx-dot`).") and EQUATION_IN_PARENTHESES.search("实部（{eq}`cx-dot`）。")
    found = EQUATION_IN_PARENTHESES.findall((ROOT / f"{chapter}.md").read_text())
    assert not found, f"{{eq}} already prints (n.m): drop the parentheses around {found}"


EXERCISE_NAMED_TWICE = re.compile(r"(?:\b[Ee]xercises?|练习)\s*\{ref\}`([\w-]+)`")
"""The word "exercise" before a {ref} to an exercise: the role prints "Exercise 8.2" itself ("练习 8.2"), so the page
would read "exercise Exercise 8.2"."""


@functools.cache
def exercise_labels() -> set[str]:
    """Every exercise's label, from both editions (read once for all the chapters' tests)."""
    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    import student_notebooks
    return {exercise.label for chapter in chapters() + chinese_chapters()
            for exercise in student_notebooks.exercises_of((ROOT / f"{chapter}.md").read_text())}


@pytest.mark.parametrize("chapter", chapters() + chinese_chapters())
def test_no_exercise_is_named_twice(chapter):
    labels = exercise_labels()
    assert "llama-ex-start-pos" in labels
    assert EXERCISE_NAMED_TWICE.findall("; exercise\n{ref}`llama-ex-start-pos` measures") == ["llama-ex-start-pos"]
    assert EXERCISE_NAMED_TWICE.findall("；练习 {ref}`llama-ex-start-pos` 会") == ["llama-ex-start-pos"]
    found = [label for label in EXERCISE_NAMED_TWICE.findall((ROOT / f"{chapter}.md").read_text()) if label in labels]
    assert not found, f"{{ref}} prints the word exercise itself: drop the one before {found}"


@pytest.mark.parametrize("chapter", chapters())
def test_every_library_function_a_chapter_uses_is_tested(chapter):
    text = (ROOT / f"{chapter}.md").read_text()
    used_text = "\n".join(code_cells(text)) + "\n" + "\n".join(re.findall(r":pyobject: ([\w.]+)", text))
    used = {name for name in public_library_names() if re.search(rf"\b{name}\b", used_text)}
    tests = library_tests_text()
    # a test must call the function (or construct the class), not merely mention its name
    untested = sorted(name for name in used if not re.search(rf"\b{name}\s*\(", tests))
    assert not untested, f"{chapter} uses rope_lib names no library test mentions: {untested}"
