"""Chapter "RoPE in two dimensions": every displayed equation of the derivation is checked by sympy.

The chapter gives each displayed equation a label; the derivation's labels start
with `rope2d-step-`, and each one must be checked by exactly one code cell that
calls `symbolic.assert_step("<label>")`. A labelled step without a check, a check
of a label that is not displayed, or an unlabelled displayed equation fails here.
"""

import re

import pytest

from paths import ROOT
from rope_lib.teach import symbolic

CHAPTER = ROOT / "book" / "rope_2d.md"
STEP_PREFIX = "rope2d-step-"
STATEMENTS = {"rope2d-goal", "rope2d-solution"}
"""The goal (eq. 11) and the theorem (eq. 12): checked by the assert_… cell that names them."""

DISPLAYED = re.compile(r"^\$\$\n(.*?)\n\$\$(?: \(([\w-]+)\))?$", re.M | re.S)
CODE_CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(.*?)^```$", re.M | re.S)
CHECK = re.compile(r"""symbolic\.assert_step\(\s*["']([\w-]+)["']""")


def displayed_equations(text: str) -> list[tuple[str, str | None]]:
    return [(m.group(1), m.group(2)) for m in DISPLAYED.finditer(text)]


def checks(text: str) -> list[str]:
    return [label for cell in CODE_CELL.findall(text) for label in CHECK.findall(cell)]


@pytest.fixture(scope="module")
def text():
    return CHAPTER.read_text()


def test_every_displayed_equation_has_a_label(text):
    equations = displayed_equations(text)
    assert text.count("$$") == 2 * len(equations), "every $$ … $$ block is found by the parser"
    unlabelled = [body[:60] for body, label in equations if label is None]
    assert not unlabelled, f"displayed equations without a label: {unlabelled}"
    labels = [label for _, label in equations]
    assert len(labels) == len(set(labels)), "labels are unique"
    assert all(label.startswith(STEP_PREFIX) or label in STATEMENTS for label in labels), labels


def test_every_step_is_checked_once_and_every_check_names_a_displayed_step(text):
    steps = [label for _, label in displayed_equations(text) if label and label.startswith(STEP_PREFIX)]
    checked = checks(text)
    assert len(steps) >= 10, "the derivation is walked step by step"
    assert sorted(steps) == sorted(checked), (
        f"steps without a check: {sorted(set(steps) - set(checked))}; checks of no displayed step: {sorted(set(checked) - set(steps))}"
    )
    assert len(checked) == len(set(checked)), "each step is checked by one cell"
    assert set(steps) == set(symbolic.ROPE_2D_STEPS), "the library holds exactly the chapter's steps"


def test_statements_are_checked(text):
    cells = CODE_CELL.findall(text)
    for label in STATEMENTS:
        assert any(label in cell and "symbolic.assert_" in cell for cell in cells), f"{label} has no assertion naming it"


def test_each_check_sits_below_its_equation(text):
    """A reader finds the check right after the equation, before the next labelled equation… or, for the
    proof (where cells cannot go inside the directive), right after the proof."""
    positions = {label: text.index(f"$$ ({label})") for _, label in displayed_equations(text) if label}
    for label in checks(text):
        at = text.index(f'symbolic.assert_step("{label}")')
        assert at > positions[label], f"the check of {label} comes before its equation"


def test_the_counter_catches_a_missing_check(text):
    """The rule has teeth: drop one check, or add a check for a label that is not displayed."""
    dropped = text.replace('symbolic.assert_step("rope2d-step-euler")', "pass", 1)
    assert sorted(checks(dropped)) != sorted(label for _, label in displayed_equations(dropped) if label and label.startswith(STEP_PREFIX))
    renamed = text.replace("$$ (rope2d-step-euler)", "$$ (rope2d-step-euler-renamed)", 1)
    assert "rope2d-step-euler-renamed" not in checks(renamed)
