"""Each chapter as a reveal.js slide deck, made from the notebook MyST-NB executed, for the classroom.

Cells tagged in the chapter sources decide what goes on slides (everything
untagged is left out):

    slide      starts a new slide              (markdown: `+++ {"tags": ["slide", "remove-cell"]}`)
    on-slide   shows on the current slide with it (a figure's code cell, under its slide's title)
    fragment   appears on the current slide at the next key press
    notes      speaker notes (press "s" in the deck)
    slide-code on a code cell: show its code too; by default a slide shows a code cell's outputs only

A deck is written for a lecture, not pasted from the page: its slide, fragment and
notes cells are markdown cells of their own, tagged `remove-cell` so that the page
never shows them, beside the section they present. Their prose is the lecturer's;
their maths is the page's: a line `{equation}`label`` shows the chapter's (or another
chapter's) labelled equation, with the number the site gives it, so that a slide
cannot state an equation the page does not. Figures are the page's own code cells,
tagged `on-slide` or `fragment`.

Slides follow one another left to right (no vertical stacks), so that the right-arrow
key, the space bar and a clicker all reach every slide in order.

Tags become nbconvert's `slideshow.slide_type`; the MyST that plain Markdown
lacks (labels, roles, directive fences) is rewritten into Markdown by the student
editions' translator, classroom_markdown.py, in a slide's form (SlideMarkdown), with
glued numbers filled in from the chapter's glue file and citations as the student
editions have them, "(Su et al., 2021)"; a reference or a glued name the deck cannot
resolve is an error, never a "(?)". Interactive figures keep their kernel-free form
(the site's script and style are inlined into the deck).

The decks go to `<html>/_static/slides/<chapter>.slides.html`: static files of the
site, like its scripts, not pages of the book (the site's page-by-page browser
checks are written for book pages; tests/book_site/test_slides.py checks the decks). They
load nothing from another host: reveal.js (installed from npm by the Makefile,
copied to `_static/slides/reveal.js/`) and MathJax (the site's own copy in
`_static/mathjax`) are local, so a classroom without network can present from
`make serve`.

Run as `python book/_ext/slides.py BUILD_DIR [--reveal REVEAL_DIR]` (what `make slides`
does, BUILD_DIR being the folder that holds `jupyter_execute/` and `html/`), or
register it as a Sphinx extension (`slides: book/_ext/` under `sphinx.local_extensions`
in `_config.yml`) so that every book build writes the decks too.

This module sits with the site's other build code in book/_ext, which the book
build excludes; it is not part of rope_lib, which holds what the chapters teach.
"""

from __future__ import annotations

import argparse
import copy
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import nbformat

import classroom_markdown
from classroom_markdown import ADMONITIONS, Directive, DisplayMath, UnresolvedReference
from rope_lib.teach.shared.language import require_language, text

HERE = Path(__file__).resolve().parent
BOOK = HERE.parent
TEMPLATES = HERE / "slides_template"
TEMPLATE_NAME = "rope_reveal"
STATIC = BOOK / "_static"

SLIDE_TAGS = {"slide": "slide", "on-slide": "-", "fragment": "fragment", "notes": "notes"}
"""Cell tag → nbconvert slide_type ("-": on the current slide); a cell with none of these tags is skipped."""
SHOW_CODE_TAG = "slide-code"

REVEAL_VERSION = "4.6.0"
"""The reveal.js that nbconvert 7.17's reveal template is written for: the 4.x series (its default is 4.0.2)."""
REVEAL_THEME = "white"
REVEAL_FILES = ("dist/reveal.js", "dist/reveal.css", f"dist/theme/{REVEAL_THEME}.css", "dist/theme/fonts", "plugin/notes", "LICENSE")
"""What a deck loads, and only that: the other themes import web fonts from another host."""
REVEAL_PREFIX = "reveal.js"
"""reveal.js beside the decks, so each deck loads it from `_static/slides/reveal.js/`."""
MATHJAX_URL = "../mathjax/tex-chtml.js"
"""The site's own MathJax (sphinx-mathjax-offline), seen from `_static/slides/`."""
SLIDE_SIZE = (1280, 720)
"""A slide's own size, a projector's 16:9: at 1280×720 reveal.js shows it at scale 1."""
SITE_FOLDER = Path("_static") / "slides"
"""Where the decks go in the built site."""

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


@dataclass(frozen=True)
class Edition:
    """One language of the book: the folder holding its _toc.yml (the Sphinx source folder) and its language."""

    root: Path
    lang: str

    def __post_init__(self):
        require_language(self.lang)

    @property
    def chapters(self) -> str:
        """Where the toc's pages are, from the root: "book" for the English edition, "" for the Chinese (book/zh)."""
        import yaml

        folder = Path(yaml.safe_load((self.root / "_toc.yml").read_text())["root"]).parent
        return "" if folder == Path(".") else folder.as_posix()

    @property
    def language_code(self) -> str:
        """The decks' <html lang>: what the site's pages say."""
        return text(self.lang, en="en", zh="zh-CN")


ENGLISH = Edition(BOOK.parent, "en")
CHINESE = Edition(BOOK / "zh", "zh")


def executed_pages(executed: Path, edition: Edition = ENGLISH) -> dict[Path, object]:
    """Every executed page of the edition (`jupyter_execute/book/*.ipynb`, or `jupyter_execute/*.ipynb` for the Chinese
    edition), tagged for slides or not, read once: path → notebook."""
    return {path: nbformat.read(path, 4) for path in sorted((executed / edition.chapters).glob("*.ipynb"))}


def has_deck(notebook) -> bool:
    """Whether the chapter tags at least one cell for slides."""
    return any(slide_type(cell) != "skip" for cell in notebook.cells)


def slide_type(cell) -> str:
    tags = cell.get("metadata", {}).get("tags", [])
    return next((SLIDE_TAGS[t] for t in tags if t in SLIDE_TAGS), "skip")


# ---- a slide's Markdown -----------------------------------------------------------------------

SHOW_EQUATION = re.compile(r"^([ \t]*)\{equation\}`([\w-]+)`[ \t]*$")
"""A slide's line `{equation}`label``: the page's labelled equation, shown whole."""


class SlideMarkdown(classroom_markdown.Chapter):
    """A slide's MyST as plain Markdown, as classroom_markdown.py writes the student editions', but for what a slide
    shows otherwise: a line `{equation}`label`` shows the page's labelled equation whole; a $$ block keeps its lines, a
    labelled one tagged with the site's number; the chapter's title goes without its number; an admonition or a `prf:`
    block is its title in bold over its text, "Definition: The goal."; a listing is left to the page."""

    def line(self, line: str) -> str:
        """A line of text, its roles rewritten, or a line `{equation}`label`` as the equation it shows."""
        shown = SHOW_EQUATION.match(line)
        return self.equation(shown.group(2), shown.group(1)) if shown else self.inline(line)

    def equation(self, label: str, indent: str = "") -> str:
        """The labelled equation as the page displays it, tagged with the site's number."""
        equation = self.edition.equation(label)
        return "\n".join(indent + line for line in ["$$", *equation.tex.splitlines(), self.equation_tag(label), "$$"])

    def display_math(self, math: DisplayMath) -> list[str]:
        """A $$ block on its own lines, as the page writes it, with the site's number."""
        tag = [math.indent + self.equation_tag(math.label)] if math.label else []
        return [f"{math.indent}$$", *math.lines, *tag, f"{math.indent}$$"]

    def directive(self, directive: Directive) -> list[str]:
        """An admonition or a `prf:` block under its bold title; no listing; any other as in the student editions."""
        if directive.name == "literalinclude":
            return []
        if directive.name in ADMONITIONS or directive.name.startswith("prf:"):
            return ["", f"**{self.title(directive)}**", "", *self.block(directive.body), ""]
        return super().directive(directive)

    def title(self, directive: Directive) -> str:
        """An admonition's title; a `prf:` block's kind and title: "Definition: The goal.", "定义：目标"."""
        if directive.name in ADMONITIONS:
            return self.admonition_title(directive)
        kind, lang = directive.name.split(":")[-1], self.edition.language
        named = text(lang, en=": ", zh="：") + self.inline(directive.argument) if directive.argument else ""
        return f"{self.words.get(kind, kind.title())}{named}{text(lang, en='.', zh='')}"


def deck_title(title: str) -> str:
    """A page's title as its deck's <title>, its math as plain text ("RoPE in $d$ dimensions" → "RoPE in d dimensions")."""
    return re.sub(r"\$([^$]*)\$", r"\1", title).strip()


# ---- the deck ---------------------------------------------------------------------------------


def slide_notebook(notebook, markdown: SlideMarkdown):
    """A copy of an executed chapter with slide types set from the tags and its MyST made plain by `markdown`, the
    chapter's."""
    deck = copy.deepcopy(notebook)
    for cell in deck.cells:
        kind = slide_type(cell)
        cell.metadata["slideshow"] = {"slide_type": kind}
        if kind == "skip":
            continue
        if cell.cell_type == "markdown":
            try:
                cell.source = markdown.markdown(cell.source)
            except UnresolvedReference as error:
                where = f"{markdown.path.stem}: a slide cell beginning {cell.source.strip()[:60]!r}"
                raise UnresolvedReference(f"{where}: {error}") from None
        elif cell.cell_type == "code":
            if SHOW_CODE_TAG not in cell.metadata.get("tags", []):
                cell.metadata["transient"] = {"remove_source": True}
            for output in cell.get("outputs", []):
                data = output.get("data", {})
                data.pop(WIDGET_VIEW, None)  # the kernel-free text/html form shows instead
                if len(data) > 1:
                    data.pop("text/plain", None)
    deck.metadata.pop("widgets", None)
    return deck


def _exporter():
    from nbconvert import SlidesExporter

    exporter = SlidesExporter(template_name=TEMPLATE_NAME, extra_template_basedirs=[str(TEMPLATES)])
    exporter.reveal_url_prefix = REVEAL_PREFIX
    exporter.reveal_theme = REVEAL_THEME
    exporter.reveal_transition = "none"
    exporter.reveal_number = "c/t"
    return exporter


def count_slides(html: str) -> int:
    """Slides a presenter steps through: the innermost <section>s (nbconvert wraps each slide in a
    horizontal <section> holding one vertical <section>)."""
    return len(re.findall(r"<section[^>]*>(?!\s*<section)", html))


def write_decks(executed: Path, out: Path, reveal: Path | None = None, edition: Edition = ENGLISH) -> dict[str, int]:
    """Write one deck per tagged chapter of `edition` into `out` (and reveal.js into out/reveal.js); return slides per
    deck."""
    out.mkdir(parents=True, exist_ok=True)
    labels = classroom_markdown.edition_of(edition.root, edition.lang)
    extra = {
        "mathjax_url": MATHJAX_URL,
        "figure_script": (STATIC / "interactive_figures.js").read_text(),
        "figure_style": (STATIC / "interactive_figures.css").read_text(),
        "width": SLIDE_SIZE[0],
        "height": SLIDE_SIZE[1],
    }
    exporter, counts = _exporter(), {}
    exporter.language_code = edition.language_code
    for path, notebook in executed_pages(executed, edition).items():
        if not has_deck(notebook):
            continue
        markdown = SlideMarkdown(path, labels, classroom_markdown.built_glue(path))
        html, _ = exporter.from_notebook_node(
            slide_notebook(notebook, markdown),
            resources={"metadata": {"name": deck_title(labels.target(path.stem).text)}, "rope": extra},
        )
        (out / f"{path.stem}.slides.html").write_text(html)
        counts[path.stem] = count_slides(html)
    if reveal is not None:
        copy_reveal(reveal, out / REVEAL_PREFIX)
    return counts


def copy_reveal(reveal: Path, target: Path) -> None:
    if not (reveal / "dist" / "reveal.js").is_file():
        raise FileNotFoundError(f"no reveal.js in {reveal}: run `make slides`, which installs reveal.js@{REVEAL_VERSION} from npm")
    for part in REVEAL_FILES:
        source, dest = reveal / part, target / part
        if source.is_dir():
            shutil.copytree(source, dest, dirs_exist_ok=True)
        else:
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, dest)


# ---- as a Sphinx extension --------------------------------------------------------------------

from sphinx.util import logging  # noqa: E402  (only the extension needs Sphinx)

DEFAULT_REVEAL = BOOK.parent / ".venv" / "reveal.js" / "node_modules" / "reveal.js"
"""Where `make slides` installs reveal.js (npm install --prefix .venv/reveal.js)."""


def _write_decks_after_build(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    if not DEFAULT_REVEAL.is_dir():
        logging.getLogger(__name__).warning(
            f"no reveal.js in {DEFAULT_REVEAL}: the slide decks need it; `make book` installs reveal.js@{REVEAL_VERSION} from npm"
        )
        return
    from book_site import site_language

    build = Path(app.outdir).parent
    write_decks(build / "jupyter_execute", Path(app.outdir) / SITE_FOLDER, DEFAULT_REVEAL, Edition(Path(app.confdir), site_language(app)))


def setup(app):
    app.connect("build-finished", _write_decks_after_build)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("build", type=Path, help="the build folder that holds jupyter_execute/ and html/ (e.g. _build)")
    parser.add_argument("--out", type=Path, help="where the decks go (default: BUILD/html/_static/slides)")
    parser.add_argument("--reveal", type=Path, default=DEFAULT_REVEAL, help="the npm-installed reveal.js package folder")
    args = parser.parse_args(argv)
    executed = args.build / "jupyter_execute"
    if not (executed / "book").is_dir():
        parser.error(f"no executed chapters in {executed}/book: build the book first (make book)")
    counts = write_decks(executed, args.out or args.build / "html" / SITE_FOLDER, args.reveal)
    for name, n in counts.items():
        print(f"{name}: {n} slides")


if __name__ == "__main__":
    main()
