"""A listing of rope_lib shows the computation: book/_ext/listings.py leaves the argument checks' decorator out of
every `{literalinclude}`, on the site, in the PDF and in the student editions."""

import sys

from paths import ROOT

sys.path.insert(0, str(ROOT / "book" / "_ext"))
from listings import without_checks  # noqa: E402


def test_the_decorator_goes_however_many_lines_it_takes():
    one = ["@checked_by(rope_arguments)", "def rope(x):", "    return x"]
    assert without_checks(one) == ["def rope(x):", "    return x"]
    several = ["    @checked_by(", "        update_arguments,", "        increasing(\"beta_slow\", \"beta_fast\"),", "    )", "    def update(self):",
               "        pass"]
    assert without_checks(several) == ["    def update(self):", "        pass"]


def test_other_decorators_and_code_stay():
    code = ["@torch.no_grad()", "def f(x):", "    checked = checked_by(x)  # a call in the body is the body's", "    return x"]
    assert without_checks(code) == code


def test_no_student_edition_lists_the_decorator():
    editions = sorted(ROOT.glob("book/*.student.ipynb")) + sorted(ROOT.glob("book/zh/*.student.ipynb"))
    assert editions and not [p.name for p in editions if "@checked_by" in p.read_text()]
