"""rope_lib is installed (editable) into the environment, not found through sys.path tricks."""

import subprocess
import sys
from pathlib import Path

import rope_lib

ROOT = Path(__file__).resolve().parents[1]


def test_import_works_from_any_directory(tmp_path):
    out = subprocess.run(
        [sys.executable, "-c", "import rope_lib, os; print(os.path.dirname(rope_lib.__file__))"],
        cwd=tmp_path, capture_output=True, text=True, check=True,
    )
    assert Path(out.stdout.strip()) == ROOT / "rope_lib"


def test_public_api_is_flat_and_complete():
    for name in rope_lib.__all__:
        assert hasattr(rope_lib, name), name
