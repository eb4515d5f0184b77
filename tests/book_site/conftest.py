"""Fixtures of the tests that build the book and visit the site and the slide decks in a real browser."""

import contextlib
import functools
import http.server
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from paths import CHINESE, ROOT

CHROMIUM = Path("/usr/bin/chromium")
"""Debian's Chromium (scripts/install_chromium.sh); no test tool downloads a browser of its own."""
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
def built_pdf_zh(book_output):
    """The Chinese edition's PDF, built as `make pdf` builds it (from book/zh into _build/zh): (result, its LaTeX folder)."""
    result = _build_book(CHINESE, book_output / "zh", builder="pdflatex")
    return result, book_output / "zh" / "_build" / "latex"


def _together(results: list[subprocess.CompletedProcess]) -> subprocess.CompletedProcess:
    """Several builds as one: the first failure's return code (0 when all passed), and every build's output."""
    failed = next((r.returncode for r in results if r.returncode != 0), 0)
    return subprocess.CompletedProcess([r.args for r in results], failed, "\n".join(r.stdout for r in results),
                                       "\n".join(r.stderr for r in results))


@pytest.fixture(scope="session")
def built_book(book_output, built_pdf, built_pdf_zh):
    """The whole book built once per test session as `make book` builds it, shared by the build test and the browser
    tests: each edition's PDF first (the site offers it, and the site's build reuses the cells the PDF's build
    executed), then the English site, then the Chinese one, copied into the English site's zh/."""
    html = book_output / "_build" / "html"
    results = [built_pdf[0], built_pdf_zh[0]]
    if all(r.returncode == 0 for r in results):
        results.append(_build_book(ROOT, book_output))
        results.append(_build_book(CHINESE, book_output / "zh"))
        if results[-1].returncode == 0:
            shutil.copytree(book_output / "zh" / "_build" / "html", html / "zh", dirs_exist_ok=True)
    return _together(results), html


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
        pytest.skip("scripts/install_chromium.sh installs Debian's chromium")
    return {"executable_path": str(CHROMIUM), "args": CHROMIUM_ARGS}
