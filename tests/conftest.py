"""Settings for every test: seeded draws, hypothesis profiles, the GPU tests skipped without a GPU, and the
scheduling that keeps the book's tests on one pytest-xdist worker."""

import os

import pytest
import torch
from hypothesis import HealthCheck, settings

# CI gets a fixed, reproducible set of examples; a developer run explores new ones.
settings.register_profile("ci", derandomize=True, max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "dev")


BOOK_TESTS = "tests/book_site/"
SEPARATE_BOOK_TESTS = {"tests/book_site/test_notebook_environment.py": "binder"}


def work_unit(nodeid: str, by_module) -> str:
    """The unit a test is scheduled in when pytest-xdist runs the tests in workers (`make test`, `make test-fast`):
    the tests of tests/book_site/ together, "book", so that one worker builds the book once for all of them; the
    Binder environment's tests, which build their own, "binder"; any other test with the rest of its module."""
    path = nodeid.split("::", 1)[0]
    if path.startswith(BOOK_TESTS):
        return SEPARATE_BOOK_TESTS.get(path, "book")
    return by_module(nodeid)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """`--dist loadscope` (`make test`) schedules by `work_unit`; any other mode is pytest-xdist's own."""
    if config.getoption("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class BookTogether(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return work_unit(nodeid, super()._split_scope)

    return BookTogether(config, log)


def pytest_collection_modifyitems(config, items):
    if torch.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="no CUDA device visible")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def gen():
    """A seeded generator: every test draws the same numbers on every run."""
    return torch.Generator().manual_seed(0)
