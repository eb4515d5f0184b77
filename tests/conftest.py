import contextlib
import functools
import http.server
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import torch
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parents[1]

CHROMIUM = Path("/usr/bin/chromium")
"""Debian's Chromium (tests/install_chromium.sh); no test tool downloads a browser of its own."""
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-default-apps",
]
"""Headless, as root, and quiet on the network: no background requests to any other host."""

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


def build_book(source: Path, output: Path) -> subprocess.CompletedProcess:
    """`jupyter-book build` as `make book` runs it, into `output`, with a fresh execution cache there."""
    jupyter_book = str(Path(sys.executable).parent / "jupyter-book")
    return subprocess.run(
        [jupyter_book, "build", str(source), "-W", "-n", "--keep-going", "--path-output", str(output)],
        capture_output=True, text=True, timeout=3600,
    )


@pytest.fixture(scope="session")
def built_book(tmp_path_factory):
    """The whole book built once per test session, shared by the build test and the browser tests."""
    output = tmp_path_factory.mktemp("book")
    result = build_book(ROOT, output)
    return result, output / "_build" / "html"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@contextlib.contextmanager
def serve(directory: Path):
    """Serve `directory` on a free localhost port for the browser tests; yields the origin "127.0.0.1:PORT"."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(directory)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
