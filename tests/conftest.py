"""Settings for every test: seeded draws, hypothesis profiles, the GPU tests skipped without a GPU, and the
scheduling that keeps the book's tests on one pytest-xdist worker."""

import os

import pytest
import torch
from hypothesis import HealthCheck, settings

from scheduling import work_unit

# CI gets a fixed, reproducible set of examples; a developer run explores new ones.
settings.register_profile("ci", derandomize=True, max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "dev")


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
