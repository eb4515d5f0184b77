"""The book builds with zero warnings, every cell executed; a failing cell fails the build."""

import json
from pathlib import Path

import pytest
import yaml

from paths import ROOT, chapters, pages, pdf_name, toc_parts, teacher_pdf_name


@pytest.mark.slow
def test_book_builds_with_zero_warnings(built_book):
    """Built with a fresh execution cache, so a change to rope_lib cannot hide behind cached outputs."""
    result, html = built_book
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-6000:]
    for page in pages():
        assert "Traceback" not in (html / f"{page}.html").read_text(), page


def tiny_book(folder: Path, cell: str, text: str = "", extensions: tuple[str, ...] = ()) -> Path:
    """A one-page book with the project's own execution settings, `text` after its code cell, and the named local
    extensions of book/_ext (none by default)."""
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    config.pop("bibtex_bibfiles", None)
    config["sphinx"]["config"].pop("bibtex_reference_style", None)
    config["sphinx"]["config"].pop("html_static_path", None)
    config["sphinx"]["config"].pop("html_favicon", None)  # a file of book/_static, which the tiny book lacks
    config["sphinx"]["config"].pop("rope_other_edition", None)  # a setting of book/_ext/book_site.py, not loaded here
    config["sphinx"]["local_extensions"] = {name: str(ROOT / "book" / "_ext") for name in extensions}
    config["only_build_toc_files"] = True
    folder.mkdir()
    (folder / "_config.yml").write_text(yaml.safe_dump(config))
    (folder / "_toc.yml").write_text("format: jb-book\nroot: page\n")
    (folder / "page.md").write_text(
        "---\njupytext:\n  text_representation:\n    format_name: myst\n"
        "kernelspec:\n  display_name: Python 3\n  language: python\n  name: python3\n---\n\n"
        f"# A page\n\n```{{code-cell}} ipython3\n{cell}\n```\n\n{text}"
    )
    return folder


@pytest.mark.slow
def test_a_failing_cell_fails_the_build(tmp_path, build_book):
    passing = build_book(tiny_book(tmp_path / "good", "import rope_lib\nassert rope_lib.inv_freq(4)[0] == 1.0"), tmp_path / "good_out")
    assert passing.returncode == 0, passing.stdout[-4000:] + passing.stderr[-4000:]
    failing = build_book(tiny_book(tmp_path / "bad", "import rope_lib\nassert rope_lib.inv_freq(4)[0] == 2.0"), tmp_path / "bad_out")
    assert failing.returncode != 0
    assert "AssertionError" in failing.stdout + failing.stderr


PDF_LINK = "<p><a class=\"reference download\" href=\"{name}\">Download the book as PDF</a></p>"


@pytest.mark.slow
def test_the_site_offers_the_pdf_only_when_one_was_built(tmp_path, build_book):
    """`make html` builds no PDF: its site has no download entry, no link and no file. Once `make pdf` has written
    the PDF beside the HTML folder, the next HTML build (sources unchanged) links it on the page and in the menu,
    writing the pages again without reading them again; once the PDF is gone, the next build drops the link."""
    name = pdf_name()
    link = f"````{{only}} book_pdf\n```{{raw}} html\n{PDF_LINK.format(name=name)}\n```\n````\n"
    book, out = tiny_book(tmp_path / "book", "print(1)", link, extensions=("book_pdf",)), tmp_path / "out"
    html = out / "_build" / "html"

    without = build_book(book, out)
    assert without.returncode == 0, without.stdout[-4000:] + without.stderr[-4000:]
    page = (html / "page.html").read_text()
    assert name not in page and "download-book-pdf-button" not in page and not (html / name).exists()

    (out / "_build" / "latex").mkdir(parents=True)
    (out / "_build" / "latex" / name).write_bytes(b"%PDF-1.5 a stand-in")
    alone = build_book(book, out)  # the student's PDF without the teacher's: the pair is not there yet
    assert alone.returncode == 0, alone.stdout[-4000:] + alone.stderr[-4000:]
    assert "download-book-pdf-button" not in (html / "page.html").read_text()
    (out / "_build" / "latex" / teacher_pdf_name()).write_bytes(b"%PDF-1.5 the teacher's stand-in")
    with_pdf = build_book(book, out)
    assert with_pdf.returncode == 0, with_pdf.stdout[-4000:] + with_pdf.stderr[-4000:]
    page = (html / "page.html").read_text()
    assert PDF_LINK.format(name=name) in page and "download-book-pdf-button" in page
    assert "download-teacher-pdf-button" in page and teacher_pdf_name() in page
    assert (html / name).read_bytes() == b"%PDF-1.5 a stand-in"
    assert (html / teacher_pdf_name()).read_bytes() == b"%PDF-1.5 the teacher's stand-in"
    executed = json.loads((out / "_build" / "jupyter_execute" / "page.ipynb").read_text())
    outputs = [["".join(output.get("text", "")) for output in cell["outputs"]] for cell in executed["cells"] if cell["cell_type"] == "code"]
    assert outputs == [["1\n"]], \
        "the page was read again from the execution cache, and its executed notebook lost its outputs"

    (out / "_build" / "latex" / name).unlink()
    gone = build_book(book, out)
    assert gone.returncode == 0, gone.stdout[-4000:] + gone.stderr[-4000:]
    page = (html / "page.html").read_text()
    assert name not in page and "download-book-pdf-button" not in page and not (html / name).exists()


def test_the_reading_order():
    """The teaching chapters come first; the systems chapter is an appendix of its own after them; "Why does RoPE work?",
    which derives B_{m,θ}, comes before every other chapter that uses it; the back matter is not numbered."""
    parts = toc_parts()
    captions = [part["caption"] for part in parts]
    assert captions[1] == "Appendix" and [entry["file"] for entry in parts[1]["chapters"]] == ["book/implementations_and_speed"]
    assert parts[0]["numbered"] and parts[1]["numbered"] and not parts[-1].get("numbered")
    assert [entry["file"] for entry in parts[-1]["chapters"]] == ["book/teachers_guide", "book/references"]
    order = chapters()
    users = [chapter for chapter in order if "B_{m" in (ROOT / f"{chapter}.md").read_text()]
    assert users and users[0] == "book/why_rope_works", users
