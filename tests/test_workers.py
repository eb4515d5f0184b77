"""`make test` runs pytest in two workers (`--dist loadscope`): the book's tests share one, so that the book is built
once."""

import re
import subprocess
import sys

import pytest

from scheduling import work_unit
from paths import ROOT


def by_module(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def test_the_book_s_tests_are_one_unit_and_the_binder_environment_s_another():
    assert work_unit("tests/book_site/test_site.py::test_math_is_typeset", by_module) == "book"
    assert work_unit("tests/book_site/test_pdf.py::test_no_reference_is_left_unresolved", by_module) == "book"
    assert work_unit("tests/book_site/test_notebook_environment.py::test_x[book/rope_2d]", by_module) == "binder"
    assert work_unit("tests/test_rope.py::test_three_forms_agree[dtype0]", by_module) == "tests/test_rope.py"


@pytest.mark.slow
def test_two_workers_run_the_book_s_tests_on_one():
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadscope", "-v", "-p", "no:cacheprovider",
         "tests/book_site/test_book.py::test_the_reading_order", "tests/book_site/test_chapters.py", "-k",
         "reading_order or objectives"],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )
    assert result.returncode == 0, result.stdout[-3000:]
    workers = set(re.findall(r"\[(gw\d)\] .*PASSED", result.stdout))
    assert len(workers) == 1, workers
