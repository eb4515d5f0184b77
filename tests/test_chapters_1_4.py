"""Chapters 1–4 have their teaching scaffolding, and every rope_lib function they use is exercised by a library test."""

import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import pytest

import rope_lib

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = {
    "book/tokens_and_attention.md": "ch-tokens",
    "book/sinusoidal_encoding.md": "ch-sinusoidal",
    "book/complex_numbers.md": "ch-complex",
    "book/rotation_matrices.md": "ch-rotation",
}
CODE_CELL = re.compile(r"```\{code-cell\}[^\n]*\n(.*?)```", re.S)


def library_functions() -> set[str]:
    """Names of the functions and classes defined in rope_lib and its subpackages."""
    names = set()
    for info in pkgutil.walk_packages(rope_lib.__path__, "rope_lib."):
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if (inspect.isfunction(obj) or inspect.isclass(obj)) and obj.__module__ == info.name and not name.startswith("_"):
                names.add(name)
    return names


def used_names(text: str, known: set[str]) -> set[str]:
    """rope_lib names a chapter's code cells call or import (`rope_lib.f`, `plotting.f`, `from … import f`)."""
    code = "\n".join(CODE_CELL.findall(text))
    attributes = set(re.findall(r"\.(\w+)\s*\(", code))
    imported = {name for group in re.findall(r"from rope_lib[\w.]* import ([\w, ]+)", code) for name in re.split(r"[,\s]+", group)}
    return (attributes | imported) & known


def test_library_tests_call_every_function_the_chapters_use():
    known = library_functions()
    tests = "\n".join(p.read_text() for p in (ROOT / "tests").glob("test_*.py") if p.name != Path(__file__).name)
    for chapter in CHAPTERS:
        used = used_names((ROOT / chapter).read_text(), known)
        assert len(used) >= 5, (chapter, used)
        untested = sorted(name for name in used if not re.search(rf"\b{name}\s*\(", tests))
        assert not untested, f"{chapter} uses rope_lib functions no library test calls: {untested}"


@pytest.mark.parametrize("chapter, label", CHAPTERS.items())
def test_chapter_has_objectives_summary_and_exercises_with_solutions(chapter, label):
    text = (ROOT / chapter).read_text()
    assert text.startswith("---\njupytext:"), "jupytext header"
    assert re.search(rf"^\({label}\)=\n# ", text, re.M), f"top label ({label})= above the title"
    assert "```{admonition} After this chapter you can\n:class: tip" in text, "objectives admonition"
    assert "\n## Summary\n" in text and "\n## Exercises\n" in text
    exercises = re.findall(r"^:::\{exercise\}\n:label: ([\w-]+)$", text, re.M)
    solutions = re.findall(r"^:::\{solution-start\} ([\w-]+)\n:class: dropdown$", text, re.M)
    assert len(exercises) >= 3 and sorted(exercises) == sorted(solutions), (exercises, solutions)
    assert text.count(":::{solution-end}") == len(exercises)
    after_exercises = text.split("\n## Exercises\n", 1)[1]
    assert any("assert" in cell for cell in CODE_CELL.findall(after_exercises)), "a coding exercise whose solution asserts"
    assert re.search(r"\$\$ \([\w-]+\)", text) and "{eq}`" in text, "labelled, referenced equations"
    assert "{cite}`" in text and "{literalinclude} ../rope_lib/" in text


def test_chapters_are_in_the_toc_in_order():
    toc = (ROOT / "_toc.yml").read_text()
    positions = [toc.index(f"- file: {chapter[:-3]}\n") for chapter in CHAPTERS]
    assert positions == sorted(positions)
