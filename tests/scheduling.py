"""How `make test` splits the tests over its two pytest-xdist workers (tests/conftest.py installs it)."""

BOOK_TESTS = "tests/book_site/"
SEPARATE_BOOK_TESTS = {"tests/book_site/test_notebook_environment.py": "binder"}


def work_unit(nodeid: str, by_module) -> str:
    """The unit a test is scheduled in when `make test` runs the tests in two workers (`--dist loadscope`):
    the tests of tests/book_site/ together, "book", so that one worker builds the book once for all of them; the
    Binder environment's tests, which build their own, "binder"; any other test with the rest of its module."""
    path = nodeid.split("::", 1)[0]
    if path.startswith(BOOK_TESTS):
        return SEPARATE_BOOK_TESTS.get(path, "book")
    return by_module(nodeid)
