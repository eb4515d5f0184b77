"""Settings for every test: seeded draws, hypothesis profiles, and the GPU tests skipped without a GPU."""

import os

import pytest
import torch
from hypothesis import HealthCheck, settings

# CI gets a fixed, reproducible set of examples; a developer run explores new ones.
settings.register_profile("ci", derandomize=True, max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "dev")


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
