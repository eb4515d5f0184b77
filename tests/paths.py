"""Where the project's files are, for the tests in every folder (on sys.path through pyproject's `pythonpath`)."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
"""The repository root: README, _toc.yml, book/, rope_lib/."""

CHINESE = ROOT / "book" / "zh"
"""The Chinese edition's folder: its _config.yml, _toc.yml and pages; built into the site's zh/."""

NOT_CHAPTERS = {"book/intro", "book/references", "book/teachers_guide"}
"""The pages of _toc.yml that are not chapters: no objectives, summary or exercises."""


def toc_parts() -> list[dict]:
    """The parts of _toc.yml in order, each with its caption, `numbered` and chapters ({"file": …} entries)."""
    import yaml

    return yaml.safe_load((ROOT / "_toc.yml").read_text())["parts"]


def pages() -> list[str]:
    """Every page of the book in reading order, the root page first, as paths without .md."""
    import yaml

    root = yaml.safe_load((ROOT / "_toc.yml").read_text())["root"]
    return [root] + [entry["file"] for part in toc_parts() for entry in part["chapters"]]


def chinese_pages() -> list[str]:
    """Every page of the Chinese edition in reading order, the root page first, as paths from the repository root
    without .md (e.g. "book/zh/rope_2d")."""
    import yaml

    toc = yaml.safe_load((CHINESE / "_toc.yml").read_text())
    return [f"book/zh/{name}" for name in [toc["root"]] + [entry["file"] for part in toc["parts"] for entry in part["chapters"]]]


def chapters() -> list[str]:
    """The chapters in _toc.yml order, as paths without .md (e.g. "book/rope_2d")."""
    return [page for page in pages()[1:] if page not in NOT_CHAPTERS]


def chinese_chapters() -> list[str]:
    """The chapters of the Chinese edition, in the English order: book/zh/<chapter> for each of `chapters()`."""
    return [chapter.replace("book/", "book/zh/", 1) for chapter in chapters()]


def pdf_name() -> str:
    """The book's student PDF (`make pdf`, and the site's copy): latex_documents' targetname in _config.yml, .tex → .pdf."""
    import yaml

    target = yaml.safe_load((ROOT / "_config.yml").read_text())["latex"]["latex_documents"]["targetname"]
    return str(Path(target).with_suffix(".pdf"))


def teacher_pdf_name() -> str:
    """The book's teacher PDF: the student's name with "-teacher" before .pdf (book/_ext/book_pdf.py)."""
    return pdf_name().removesuffix(".pdf") + "-teacher.pdf"
