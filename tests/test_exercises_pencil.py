"""Pencil-and-paper exercises: a worked solution, step by step, whose every step a hidden cell checks with sympy.

Such a solution holds a display of its steps (a `{math}` block, unlabelled: the chapter's labelled equations are its
own) and a code cell tagged hide-input whose first line is MARKER. The cell uses `sp`, `np` and
`rope_lib.teach.shared.symbolic` only, so it runs here on its own. Each top-level call of `symbolic.assert_equal`,
`assert_zero` or `assert_relative_only` checks one step; the test plants a slip in each call in turn (a stray symbol
added to one side) and sees the cell fail, so that no step's check is idle.
"""

import re

import numpy as np
import pytest
import sympy as sp

from paths import ROOT, chapters
from rope_lib.teach.shared import symbolic

MARKER = "# Each step of the worked solution above, checked with sympy."
SOLUTION = re.compile(r":::\{solution-start\} ([\w-]+)\n:class: dropdown\n:::\n(.*?):::\{solution-end\}", re.S)
CODE_CELL = re.compile(r"^```\{code-cell\} ipython3\n(.*?)^```$", re.M | re.S)
STEPS = ("assert_equal", "assert_zero", "assert_relative_only")
"""The verbs of `symbolic` with which a check cell checks a step."""


def pencil_solutions() -> list[tuple[str, str, str]]:
    """(chapter, exercise label, solution text) of every solution with a check cell, in book order."""
    found = []
    for chapter in chapters():
        for label, body in SOLUTION.findall((ROOT / f"{chapter}.md").read_text()):
            if MARKER in body:
                found.append((chapter, label, body))
    return found


def check_cell(body: str) -> tuple[list[str], str]:
    """The tags and the source of the solution's check cell."""
    for cell in CODE_CELL.findall(body):
        lines = cell.splitlines()
        tags = re.findall(r"[\w-]+", lines[0].split(":", 2)[2]) if lines[0].startswith(":tags:") else []
        source = "\n".join(lines[1:] if tags else lines)
        if source.lstrip().startswith(MARKER):
            return tags, source
    raise AssertionError("no check cell")


def run(source: str, monkeypatch, slip_at: int | None = None) -> int:
    """Run a check cell; with slip_at = k, the k-th top-level step check gets a slip. Returns how many steps it checked."""
    calls, depth = [0], [0]
    slip = sp.Symbol("slip")

    def planted(verb):
        original = getattr(symbolic, verb)

        def wrapper(first, *rest, **options):
            if depth[0] == 0:
                calls[0] += 1
                if calls[0] - 1 == slip_at:  # a slip that depends on n, for a check of dependence on m − n only
                    stray = slip * rest[1] if verb == "assert_relative_only" else slip
                    first = first + (stray * sp.ones(*first.shape) if isinstance(first, sp.MatrixBase) else stray)
            depth[0] += 1
            try:
                return original(first, *rest, **options)
            finally:
                depth[0] -= 1

        return wrapper

    for verb in STEPS:
        monkeypatch.setattr(symbolic, verb, planted(verb))
    exec(compile(source, "<check cell>", "exec"), {"sp": sp, "np": np, "symbolic": symbolic})
    return calls[0]


def test_the_book_has_pencil_and_paper_exercises():
    assert len(pencil_solutions()) >= 3


@pytest.mark.parametrize(("label", "body"), [pytest.param(label, body, id=label) for _, label, body in pencil_solutions()])
@pytest.mark.slow
def test_each_step_of_a_worked_solution_is_checked(label, body, monkeypatch):
    assert "```{math}" in body, f"{label}: the worked solution displays its steps"
    assert "$$" not in body, f"{label}: the steps are shown in {{math}} blocks, unlabelled ($$ … $$ is for the chapter's labelled equations)"
    tags, source = check_cell(body)
    assert "hide-input" in tags, f"{label}: the check cell hides its input"
    steps = run(source, monkeypatch)
    assert steps >= 3, f"{label}: a step-by-step solution checks its steps, found {steps}"
    for k in range(steps):
        with pytest.raises(AssertionError):
            run(source, monkeypatch, slip_at=k)


def test_a_slip_in_a_step_is_caught(monkeypatch):
    source = f"{MARKER}\na = sp.Symbol('a', real=True)\nsymbolic.assert_equal((a + 1) ** 2, a**2 + 2 * a + 1, 'square')"
    assert run(source, monkeypatch) == 1
    with pytest.raises(AssertionError):
        run(source, monkeypatch, slip_at=0)
    wrong = source.replace("2 * a", "3 * a")
    with pytest.raises(AssertionError):
        run(wrong, monkeypatch)
