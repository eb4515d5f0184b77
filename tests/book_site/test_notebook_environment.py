"""What a student on Binder does, done here: a fresh environment from binder/ and every chapter, English and Chinese,
run as a notebook, in both editions side by side: the chapter with its solutions, and its committed student edition.

The package list is binder/requirements.txt, except that torch comes from the
registry (torch==2.13.0, the CPU build on this machine) because PyTorch's own
index is out of reach; binder/postBuild's `pip install -e .` adds rope_lib.
"""

import re
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from paths import ROOT, chapters, chinese_chapters

sys.path.insert(0, str(ROOT / "book" / "_ext"))
import student_notebooks  # noqa: E402

pytestmark = pytest.mark.slow


def binder_requirements() -> list[str]:
    lines = []
    for line in (ROOT / "binder" / "requirements.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line or line.startswith("--"):
            continue
        lines.append(re.sub(r"^torch==([\d.]+)\+cpu$", r"torch==\1", line))
    return lines


def test_binder_asks_for_the_cpu_build_of_the_pinned_torch():
    text = (ROOT / "binder" / "requirements.txt").read_text()
    assert "--extra-index-url https://download.pytorch.org/whl/cpu" in text
    assert "torch==2.13.0+cpu" in text
    assert "torch==2.13.0" in (ROOT / "requirements.txt").read_text()


@pytest.fixture(scope="module")
def student_python(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("binder-env")
    venv.create(folder, with_pip=True)
    python = folder / "bin" / "python"
    pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run(pip + binder_requirements(), check=True, timeout=1800)
    subprocess.run(pip + ["--no-deps", "-e", str(ROOT)], check=True, timeout=600)
    return python


@pytest.mark.parametrize("chapter", chapters() + chinese_chapters())
def test_chapter_runs_as_a_notebook_in_the_binder_environment(student_python, chapter):
    """Both editions run top to bottom, build their live widgets, and each auto-check of the student edition answers
    NOT YET on the empty answer."""
    result = subprocess.run(
        [str(student_python), str(ROOT / "tests" / "book_site" / "run_chapters_as_notebooks.py"), str(ROOT / f"{chapter}.md")],
        capture_output=True, text=True, timeout=1800,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-5000:]
    builders = re.findall(r"\b(\w+_(?:widget|explorer))\(", (ROOT / f"{chapter}.md").read_text())  # the interactive figures made
    expected = len(set(builders))
    widgets = int(re.search(r"\.md: executed, (\d+) live widgets", result.stdout).group(1))
    assert widgets >= expected, f"{chapter}: {widgets} live widgets, expected at least {expected}"
    student = re.search(r"student edition: executed, (\d+) live widgets, (\d+) checks NOT YET", result.stdout)
    assert int(student.group(1)) >= expected, f"{chapter} student edition: {student.group(1)} live widgets"
    checks = sum(len(e.checked) for e in student_notebooks.exercises_of((ROOT / f"{chapter}.md").read_text()))
    assert int(student.group(2)) == checks, f"{chapter} student edition: {student.group(2)} of {checks} checks said NOT YET"
