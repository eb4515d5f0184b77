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
lacks (labels, roles, directive fences) is rewritten into Markdown, with glued
numbers filled in from the chapter's glue file; a reference or a glued name the
deck cannot resolve is an error, never a "(?)". Interactive figures keep their
kernel-free form (the site's script and style are inlined into the deck).

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
import json
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from chinese_lines import join_markdown_lines
from rope_lib.teach.language import require_language, text

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


# ---- MyST → Markdown for the slides ----------------------------------------------------------

_ROLE = re.compile(r"\{([\w:-]+)\}`([^`]*)`")
_LABEL_LINE = re.compile(r"^\([\w-]+\)=\s*$", re.M)
_EQUATION_LABEL = re.compile(r"^([ \t]*)\$\$[ \t]*\(([\w-]+)\)[ \t]*$", re.M)
"""The closing `$$ (label)` of a labelled equation, also indented (inside a list item or a directive)."""
_FENCE = re.compile(r"^(```+|:::+)\{([\w:-]+)\}[ \t]*(.*?)\n(.*?)^\1[ \t]*$", re.M | re.S)
_OPTION = re.compile(r"^:[\w-]+:.*\n?", re.M)
_SHOW_EQUATION = re.compile(r"^([ \t]*)\{equation\}`([\w-]+)`[ \t]*$", re.M)
"""A slide's line `{equation}`label``: the page's labelled equation, shown whole."""


class UnresolvedReference(ValueError):
    """A slide names an equation, a section, a page or a glued value the edition does not have."""


def _removed(cell) -> bool:
    return "remove-cell" in cell.get("metadata", {}).get("tags", [])


def _page_markdown(notebook) -> list[str]:
    """The markdown the page shows: slide and notes cells (`remove-cell`) are the deck's, not the page's."""
    return [c.source for c in notebook.cells if c.cell_type == "markdown" and not _removed(c)]


def _heading_labels(pages) -> dict[str, str]:
    """'ch-rope-nd' → 'RoPE in d dimensions': every `(label)=` target set above a heading of the pages' markdown."""
    labels = {}
    for source in pages:
        for label, title in re.findall(r"^\(([\w-]+)\)=\n#+ (.+)$", source, re.M):
            labels[label] = re.sub(r"\$([^$]*)\$", r"\1", title).strip()
    return labels


def _page_title(notebook, fallback: str) -> str:
    return next((re.sub(r"\$([^$]*)\$", r"\1", line[2:]).strip() for source in _page_markdown(notebook)
                 for line in source.splitlines() if line.startswith("# ")), fallback)


def _equation_numbers(notebook, chapter: int | None = None) -> dict[str, int | str]:
    """Sphinx numbers a page's labelled equations 1, 2, … in order, prefixed by the chapter's number
    in a numbered book ("6.1", "6.2", …); the slides tag them the same way."""
    found = _EQUATION_LABEL.findall("\n".join(_page_markdown(notebook)))
    labels = dict.fromkeys(label for _, label in found)
    return {label: f"{chapter}.{i}" if chapter else i for i, label in enumerate(labels, start=1)}


def _labelled_equations(source: str) -> list[tuple[str, str]]:
    """(label, TeX) of each labelled display equation of `source`: the lines from an opening `$$` to the next
    `$$ (label)`, unindented; an unlabelled `$$ … $$` in between is skipped."""
    found, opening = [], None
    lines = source.splitlines()
    for i, line in enumerate(lines):
        closing = _EQUATION_LABEL.match(line)
        if closing and opening is not None:
            indent = lines[opening][: len(lines[opening]) - len(lines[opening].lstrip())]
            body = [row[len(indent):] if row.startswith(indent) else row for row in lines[opening + 1 : i]]
            found.append((closing.group(2), "\n".join(body)))
            opening = None
        elif line.strip() == "$$":
            opening = None if opening is not None else i
    return found


def _equation_bodies(notebook) -> dict[str, str]:
    """label → the TeX between the `$$` of the page's labelled display equation, unindented."""
    return {label: body for source in _page_markdown(notebook) for label, body in _labelled_equations(source)}


@dataclass
class References:
    """What a deck's references resolve to, over the whole edition: equation label → number and TeX, heading label →
    title, page name → title."""

    numbers: dict = field(default_factory=dict)
    bodies: dict = field(default_factory=dict)
    headings: dict = field(default_factory=dict)
    pages: dict = field(default_factory=dict)

    @classmethod
    def of_edition(cls, pages: dict, edition: Edition = ENGLISH) -> "References":
        """From every page of the edition (executed_pages)."""
        refs, numbers = cls(), _chapter_numbers(edition.root)
        for path, notebook in pages.items():
            refs.add(notebook, path.stem, numbers.get(path.stem))
        return refs

    def add(self, notebook, name: str, chapter: int | None = None) -> None:
        self.numbers.update(_equation_numbers(notebook, chapter))
        self.bodies.update(_equation_bodies(notebook))
        self.headings.update(_heading_labels(_page_markdown(notebook)))
        self.pages[name] = _page_title(notebook, name)

    def number(self, label: str) -> str:
        if label not in self.numbers:
            raise UnresolvedReference(f"no labelled equation {label!r} in this edition")
        return str(self.numbers[label])

    def equation(self, label: str, indent: str = "") -> str:
        """The labelled equation as the page displays it, tagged with the site's number."""
        number = self.number(label)  # raises for a label the edition lacks
        lines = ["$$", *self.bodies[label].splitlines(), f"\\tag{{{number}}}", "$$"]
        return "\n".join(indent + line for line in lines)


def _chapter_numbers(root: Path = ENGLISH.root) -> dict[str, int]:
    """'rope_2d' → 6: the number the site gives each chapter of a numbered part of _toc.yml (`numbered: 1`). The numbers
    run on from one numbered part to the next, as Jupyter Book's multi-toc numbering gives them; the pages of an
    unnumbered part and the root page have none."""
    import yaml

    toc = yaml.safe_load((root / "_toc.yml").read_text())
    numbered = [entry["file"] for part in toc.get("parts", []) if part.get("numbered") for entry in part["chapters"]]
    return {Path(file).name: i for i, file in enumerate(numbered, start=1)}


def _bib_labels(bib: Path) -> dict[str, str]:
    """'su2021roformer' → 'Su et al. 2021', from book/references.bib."""
    labels = {}
    for key, body in re.findall(r"@\w+\{([\w-]+),(.*?)\n\}", bib.read_text() if bib.is_file() else "", re.S):
        authors = re.search(r"author\s*=\s*\{(.*)\},?\s*$", body, re.M)
        year = re.search(r"year\s*=\s*\{?(\d{4})", body)
        surnames = [a.split(",")[0].strip(" {}") for a in authors.group(1).split(" and ")] if authors else [key]
        name = surnames[0] + (" et al." if len(surnames) > 2 else f" and {surnames[1]}" if len(surnames) == 2 else "")
        labels[key] = f"{name} {year.group(1) if year else ''}".strip()
    return labels


def _glue_text(glue: dict, spec: str) -> str:
    name, _, fmt = spec.partition(":")
    if name not in glue:
        raise UnresolvedReference(f"no glued value {name!r} in this chapter")
    value = glue[name].get("data", {}).get("text/plain", name).strip("'\"")
    if not fmt:
        return value
    try:
        return format(float(value), fmt)
    except ValueError:
        return value


def _role(match, glue: dict, bib: dict, refs: References) -> str:
    name, text = match.groups()
    if name in ("glue:text", "glue"):
        return _glue_text(glue, text)
    if name == "cite":
        keys = [k.strip() for k in text.split(",")]
        if missing := [k for k in keys if k not in bib]:
            raise UnresolvedReference(f"no reference {missing} in references.bib")
        return "(" + "; ".join(bib[k] for k in keys) + ")"
    if name == "eq":
        return f"({refs.number(text)})"
    if name in ("code", "literal"):
        return f"`{text}`"
    explicit = re.match(r"(.*?)\s*<[^>]*>$", text)  # {ref}`words <label>` → words
    if explicit:
        return explicit.group(1)
    if name == "ref" and text in refs.headings:
        return refs.headings[text]
    if name == "doc" and Path(text).name in refs.pages:
        return refs.pages[Path(text).name]
    raise UnresolvedReference(f"{{{name}}}`{text}`: a deck shows the titles of sections and pages, and equation numbers")


CHINESE_TITLES = {"note": "注意", "tip": "提示", "important": "重要", "warning": "警告", "hint": "提示",
                  "definition": "定义", "theorem": "定理", "lemma": "引理", "proof": "证明", "corollary": "推论",
                  "proposition": "命题", "example": "例", "remark": "注记", "property": "性质", "observation": "观察"}
"""The words a deck prints for a directive without a title, in the Chinese edition (the English one capitalises
the directive's name: "Note", "Theorem")."""


def _directive_title(name: str, lang: str) -> str:
    return text(lang, en=name.capitalize(), zh=CHINESE_TITLES.get(name, name))


def _directive(match, lang: str = "en") -> str:
    _, name, argument, body = match.groups()
    body = _OPTION.sub("", body).strip()
    if name in ("admonition", "note", "tip", "important", "warning", "hint"):
        title = argument.strip() or _directive_title(name, lang)
        return f"**{title}**\n\n{body}\n"
    if name.startswith("prf:"):  # definition, theorem, lemma, proof…
        kind, colon, stop = _directive_title(name[4:], lang), text(lang, en=": ", zh="："), text(lang, en=".", zh="")
        return f"**{kind}{colon + argument.strip() if argument.strip() else ''}{stop}**\n\n{body}\n"
    return ""  # figures, literalincludes, exercises…: left to the page


def myst_to_markdown(source: str, glue: dict, bib: dict, refs: References | None = None, lang: str = "en") -> str:
    """The MyST a slide may hold, as the plain Markdown (and TeX) that nbconvert renders.

    refs: the edition's equations, headings and pages; lang: the edition's language.
    """
    text = source
    refs = refs or References()
    text = _LABEL_LINE.sub("", text)
    text = _SHOW_EQUATION.sub(lambda m: refs.equation(m.group(2), m.group(1)), text)
    text = _EQUATION_LABEL.sub(lambda m: f"{m.group(1)}\\tag{{{refs.number(m.group(2))}}}\n{m.group(1)}$$", text)
    text = _FENCE.sub(lambda m: _directive(m, lang), text)
    text = _ROLE.sub(lambda m: _role(m, glue, bib, refs), text)
    if lang == "zh":
        text = join_markdown_lines(text)  # (a break in Chinese would show as a gap)
    return text.strip() + "\n"


# ---- the deck ---------------------------------------------------------------------------------


def slide_notebook(notebook, glue: dict, bib: dict, refs: References, lang: str = "en", name: str = "the chapter"):
    """A copy of an executed chapter with slide types set from the tags and MyST made plain; `refs`, the edition's
    equations, headings and pages; `lang`, the edition's language; `name`, the chapter's, for errors."""
    deck = copy.deepcopy(notebook)
    for cell in deck.cells:
        kind = slide_type(cell)
        cell.metadata["slideshow"] = {"slide_type": kind}
        if kind == "skip":
            continue
        if cell.cell_type == "markdown":
            try:
                cell.source = myst_to_markdown(cell.source, glue, bib, refs, lang)
            except UnresolvedReference as error:
                raise UnresolvedReference(f"{name}: a slide cell beginning {cell.source.strip()[:60]!r}: {error}") from None
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
    bib = _bib_labels(BOOK / "references.bib")
    pages = executed_pages(executed, edition)
    refs = References.of_edition(pages, edition)
    extra = {
        "mathjax_url": MATHJAX_URL,
        "figure_script": (STATIC / "interactive_figures.js").read_text(),
        "figure_style": (STATIC / "interactive_figures.css").read_text(),
        "width": SLIDE_SIZE[0],
        "height": SLIDE_SIZE[1],
    }
    exporter, counts = _exporter(), {}
    exporter.language_code = edition.language_code
    for path, notebook in pages.items():
        if not has_deck(notebook):
            continue
        glue_file = path.with_suffix(".glue.json")
        glue = json.loads(glue_file.read_text()) if glue_file.is_file() else {}
        title = refs.pages[path.stem]
        html, _ = exporter.from_notebook_node(
            slide_notebook(notebook, glue, bib, refs, edition.lang, path.stem),
            resources={"metadata": {"name": title}, "rope": extra},
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
