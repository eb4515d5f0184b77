"""Package versions live in one place, requirements.txt: Binder's list and pyproject's extras agree with it.

binder/requirements.txt pins each package it names to requirements.txt's version (torch as its CPU build,
`+cpu`, from PyTorch's index); a pin (`==`) in pyproject.toml is requirements.txt's pin when both name the package,
and every range in pyproject.toml admits requirements.txt's version.
"""

import re
import tomllib

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from paths import ROOT


def requirement_lines(path) -> list[str]:
    """The requirement lines of a pip requirements file: no comments, options (`--…`) or the editable project."""
    lines = []
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line and not line.startswith("-"):
            lines.append(line)
    return lines


def pins(path) -> dict[str, Version]:
    """name → pinned version of a requirements file; a line that is not `name==version` fails the test."""
    pinned = {}
    for line in requirement_lines(path):
        requirement = Requirement(line)
        (spec,) = requirement.specifier
        assert spec.operator == "==", f"{path.name}: {line} is not pinned with =="
        pinned[canonicalize_name(requirement.name)] = Version(spec.version)
    return pinned


REQUIREMENTS = pins(ROOT / "requirements.txt")


def test_requirements_pin_torch():
    assert REQUIREMENTS["torch"] == Version("2.13.0")


@pytest.mark.parametrize("name, version", sorted(pins(ROOT / "binder" / "requirements.txt").items()))
def test_binder_pins_the_versions_of_requirements_txt(name, version):
    assert name in REQUIREMENTS, f"binder/requirements.txt names {name}, which requirements.txt does not pin"
    assert Version(version.public) == REQUIREMENTS[name], f"{name}: binder {version}, requirements.txt {REQUIREMENTS[name]}"
    assert version.local in (None, "cpu") and (version.local == "cpu") == (name == "torch")


def pyproject_requirements() -> list[tuple[str, Requirement]]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    found = [("dependencies", Requirement(r)) for r in project["dependencies"]]
    found += [(extra, Requirement(r)) for extra, rs in project["optional-dependencies"].items() for r in rs]
    return found


@pytest.mark.parametrize("where, requirement", pyproject_requirements(), ids=lambda x: str(x))
def test_pyproject_agrees_with_requirements_txt(where, requirement):
    name = canonicalize_name(requirement.name)
    pinned = [s for s in requirement.specifier if s.operator == "=="]
    if name not in REQUIREMENTS:
        assert pinned, f"pyproject [{where}] {requirement}: a package requirements.txt does not name is pinned here"
        return
    assert requirement.specifier.contains(REQUIREMENTS[name]), (
        f"pyproject [{where}] {requirement} does not admit requirements.txt's {name}=={REQUIREMENTS[name]}")
    if pinned:
        assert Version(pinned[0].version) == REQUIREMENTS[name]


def test_a_drifted_pin_is_caught(tmp_path):
    """The comparison fails when a pin drifts: a Binder list with another matplotlib."""
    drifted = tmp_path / "requirements.txt"
    drifted.write_text(re.sub(r"matplotlib==\S+", "matplotlib==3.0.0",
                              (ROOT / "binder" / "requirements.txt").read_text()))
    version = pins(drifted)["matplotlib"]
    with pytest.raises(AssertionError):
        test_binder_pins_the_versions_of_requirements_txt("matplotlib", version)
