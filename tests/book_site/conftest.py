"""Fixtures of the tests that build the book and visit the site and the slide decks in a real browser."""

import contextlib
import functools
import http.server
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from paths import ROOT

CHROMIUM = Path("/usr/bin/chromium")
"""Debian's Chromium (tests/install_chromium.sh); no test tool downloads a browser of its own."""
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-default-apps",
]
"""Headless, as root, and quiet on the network: no background requests to any other host."""


def _build_book(source: Path, output: Path, builder: str = "html") -> subprocess.CompletedProcess:
    """`jupyter-book build` as `make book` (or, with builder "pdflatex", `make pdf`) runs it, into `output`, with a
    fresh execution cache there."""
    jupyter_book = str(Path(sys.executable).parent / "jupyter-book")
    return subprocess.run(
        [jupyter_book, "build", str(source), "-W", "-n", "--keep-going", "--builder", builder, "--path-output", str(output)],
        capture_output=True, text=True, timeout=3600,
    )


@pytest.fixture(scope="session")
def build_book():
    """The function that builds a book folder into an output folder as `make book` does."""
    return _build_book


@pytest.fixture(scope="session")
def book_output(tmp_path_factory) -> Path:
    """The folder the session's builds of the whole book write into (its `_build/`, the execution cache included)."""
    return tmp_path_factory.mktemp("book")


@pytest.fixture(scope="session")
def built_pdf(book_output):
    """The whole book as one PDF, built once per test session as `make pdf` builds it: (result, the LaTeX folder)."""
    result = _build_book(ROOT, book_output, builder="pdflatex")
    return result, book_output / "_build" / "latex"


@pytest.fixture(scope="session")
def built_book(book_output, built_pdf):
    """The whole book built once per test session as `make book` builds it, the PDF first (the site offers it, and the
    site's build reuses the cells the PDF's build executed), shared by the build test and the browser tests."""
    pdf, _ = built_pdf
    result = _build_book(ROOT, book_output) if pdf.returncode == 0 else pdf
    return result, book_output / "_build" / "html"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@contextlib.contextmanager
def _serve(directory: Path):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(directory)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


@pytest.fixture(scope="session")
def serve():
    """`with serve(directory) as origin:` serves a folder on a free localhost port; origin is "127.0.0.1:PORT"."""
    return _serve


@pytest.fixture(scope="session")
def chromium():
    """Keyword arguments for Playwright's `chromium.launch`: Debian's browser, headless and off the network."""
    if not CHROMIUM.exists():
        pytest.skip("tests/install_chromium.sh installs Debian's chromium")
    return {"executable_path": str(CHROMIUM), "args": CHROMIUM_ARGS}
