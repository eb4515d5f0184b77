"""Where the project's files are, for the tests in every folder (on sys.path through pyproject's `pythonpath`)."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
"""The repository root: README, _toc.yml, book/, rope_lib/."""

NOT_CHAPTERS = {"book/intro", "book/references", "book/teachers_guide"}
"""The pages of _toc.yml that are not chapters: no objectives, summary or exercises."""


def chapters() -> list[str]:
    """The chapters in _toc.yml order, as paths without .md (e.g. "book/rope_2d")."""
    import yaml

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    return [entry["file"] for entry in toc["chapters"] if entry["file"] not in NOT_CHAPTERS]
