"""Settings for every test: seeded draws, hypothesis profiles, the GPU tests skipped without a GPU, and the groups
that keep the book's tests on one pytest-xdist worker."""

import os

import pytest
import torch
from hypothesis import HealthCheck, settings

# CI gets a fixed, reproducible set of examples; a developer run explores new ones.
settings.register_profile("ci", derandomize=True, max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "dev")


XDIST_GROUPS = {"test_notebook_environment.py": "binder"}
"""With pytest-xdist (`make test` runs two workers), the tests of tests/book_site/ share one worker, group "book", so
that the book is built once for all of them; the Binder environment's tests, which build their own, another."""


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.path.parent.name == "book_site":
            item.add_marker(pytest.mark.xdist_group(XDIST_GROUPS.get(item.path.name, "book")))
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
