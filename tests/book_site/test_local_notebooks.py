"""A chapter opens as a notebook in a local Jupyter server, through jupytext, as CONTRIBUTING.md promises."""

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from paths import ROOT
CHAPTER = "book/rope_at_a_glance.md"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def jupyter_server(tmp_path):
    port, token = free_port(), "rope-test"
    process = subprocess.Popen(
        [str(Path(sys.executable).parent / "jupyter"), "server", "--no-browser", "--allow-root", f"--port={port}",
         "--ip=127.0.0.1", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={ROOT}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, "JUPYTER_RUNTIME_DIR": str(tmp_path)},
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=1)
                break
            except OSError:
                time.sleep(0.5)
        else:
            pytest.fail("jupyter server did not start within 60 s")
        yield url, token
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_markdown_chapter_opens_as_a_notebook(jupyter_server):
    url, token = jupyter_server
    with urllib.request.urlopen(f"{url}/api/contents/{CHAPTER}?type=notebook&token={token}", timeout=30) as response:
        model = json.load(response)
    assert model["type"] == "notebook"
    cells = model["content"]["cells"]
    code = [cell["source"] for cell in cells if cell["cell_type"] == "code"]
    assert any("import rope_lib" in source for source in code)
    assert model["content"]["metadata"]["kernelspec"]["name"] == "python3"
