"""The book as one PDF (`make pdf`: Sphinx's LaTeX writer, then XeLaTeX), numbered as the website numbers it, and
offered for download on the website. Loaded by Jupyter Book as a local Sphinx extension.

For the LaTeX build, one pass over the assembled book (the root page with every chapter inlined):

1. Front, main and back matter (the `book` class's `\\frontmatter`, `\\mainmatter`, `\\backmatter`). The root page,
   book/intro, is front matter: its opening paragraphs become an unnumbered chapter under the book's title, and its
   sections ("Four ways to read it", "Notation") unnumbered chapters, so the numbers start at the first chapter of
   _toc.yml, as on the website: PDF chapter 6 is the site's chapter 6 and equation (6.3) is the site's (6.3). Each
   part of _toc.yml starts with its caption as a `\\part`; the first numbered part opens the main matter, an
   unnumbered part after it (the teacher's guide and the references) the back matter, whose chapters take no number.
2. Hidden inputs. A cell tagged hide-input or hide-cell shows its code on the website only when the reader opens it;
   the PDF prints its outputs alone (remove-input and remove-cell cells never reach any output).
3. Solutions. The PDF is the students' printed book: the exercises keep their statements and hints, and their
   solutions (sphinx-exercise's `solution` blocks, between `solution-start` and `solution-end`) are left out. They
   are on the website and in each chapter's executed notebook.
4. Links to exercises. sphinx-exercise labels an exercise `exercise:<label>` in LaTeX, while a `{ref}` to it (the
   teacher's guide's homework table) points at `<page>:<label>`, as a reference to any other target does; each
   exercise gets that label too, so the PDF's links to exercises land on them.

For the HTML build: the website offers the PDF when one was built. The build copies it from the LaTeX build's folder
beside the HTML folder (`_build/latex`) into the site's root, every page's download menu links it, and the pages' `only`
blocks tagged `book_pdf` (the introduction's download link) are kept. Without that PDF (`make html`, which needs no
TeX) the site has no PDF and no link to one; `make book` makes the PDF first.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.errors import ExtensionError
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.texescape import escape
from sphinx_exercise.nodes import exercise_enumerable_node, exercise_node, solution_node

from book_site import buttons_of_group, site_language
from rope_lib.teach.language import text

HIDDEN_INPUT_MODES = ("input", "input+output", "all")
"""MyST-NB's `hide_mode` of cells tagged hide-input, hide-input and hide-output together, and hide-cell."""


def latex(code: str) -> nodes.raw:
    return nodes.raw("", code + "\n", format="latex")


class PrintedBook(SphinxPostTransform):
    """The LaTeX build's pass over the assembled book; see the module's docstring."""

    builders = ("latex",)
    default_priority = 900  # after every reference and exercise title is resolved

    def run(self, **kwargs) -> None:
        self.hide_hidden_inputs()
        self.leave_out_solutions()
        self.label_the_exercises()
        self.mark_the_matter()

    def hide_hidden_inputs(self) -> None:
        for cell in list(self.document.findall(nodes.container)):
            if cell.get("nb_element") == "cell_code" and cell.get("hide_mode") in HIDDEN_INPUT_MODES:
                for source in [child for child in cell.children if child.get("nb_element") == "cell_code_source"]:
                    cell.remove(source)

    def leave_out_solutions(self) -> None:
        for solution in list(self.document.findall(solution_node)):
            solution.parent.remove(solution)

    def label_the_exercises(self) -> None:
        for page in self.document.findall(addnodes.start_of_file):
            for exercise in list(page.findall(lambda node: isinstance(node, (exercise_node, exercise_enumerable_node)))):
                labels = "".join(rf"\label{{\detokenize{{{page['docname']}:{label}}}}}" for label in exercise["ids"])
                exercise.parent.insert(exercise.parent.index(exercise), latex(rf"\phantomsection{labels}"))

    def mark_the_matter(self) -> None:
        root = self.config.root_doc
        parts = list(self.env.get_doctree(root).findall(addnodes.toctree))
        wrappers = [node for node in self.document.findall(nodes.compound) if "toctree-wrapper" in node["classes"]]
        if len(wrappers) != len(parts) or not parts:
            raise ExtensionError(f"book_pdf: {root} has {len(parts)} toctrees (the parts of _toc.yml), the assembled "
                                 f"book {len(wrappers)}: cannot mark its front, main and back matter")
        title_section = wrappers[0].parent
        self.open_with_a_preface(title_section)
        numbered_seen = False
        for toctree, wrapper in zip(parts, wrappers):
            markup = []
            if toctree.get("numbered") and not numbered_seen:
                markup.append(r"\mainmatter")
                numbered_seen = True
            elif not toctree.get("numbered") and numbered_seen:
                markup.append(r"\backmatter")
            if toctree.get("caption"):
                markup.append(rf"\part{{{escape(toctree['caption'])}}}")
            wrapper.parent.insert(wrapper.parent.index(wrapper), latex("\n".join(markup)))
        if not numbered_seen:
            raise ExtensionError("book_pdf: no part of _toc.yml is numbered (numbered: 1): the PDF has no main matter")

    @staticmethod
    def open_with_a_preface(title_section: nodes.section) -> None:
        """The root page's paragraphs before its first section, under its title, as the front matter's first chapter
        (the LaTeX writer takes the root page's title for the book's and prints nothing of it in the text)."""
        title = next(child for child in title_section.children if isinstance(child, nodes.title))
        opening = []
        for child in title_section.children[title_section.index(title) + 1:]:
            if isinstance(child, (nodes.section, nodes.compound)):
                break
            opening.append(child)
        preface = nodes.section("", nodes.title("", "", *[node.deepcopy() for node in title.children]), ids=[], names=[])
        for child in opening:
            title_section.remove(child)
            preface += child
        title_section.insert(title_section.index(title) + 1, preface)


# ---- the website's link to the PDF ---------------------------------------------------------------


def pdf_name(config) -> str:
    """The PDF's file name: the LaTeX document's (latex_documents' targetname in _config.yml), .tex → .pdf."""
    return str(Path(config.latex_documents[0][1]).with_suffix(".pdf"))


def built_pdf(app) -> Path:
    """The PDF the LaTeX build wrote, in `_build/latex` beside the HTML folder."""
    return Path(app.outdir).parent / "latex" / pdf_name(app.config)


PDF_TAG = "book_pdf"
"""The Sphinx tag set when the HTML build finds the PDF: `{only} book_pdf` blocks show only then."""


def tag_the_pdf(app, env) -> list[str]:
    """Once the HTML build has read its pages (Jupyter Book sets the PDF's name after Sphinx starts), and before it
    writes them: tag the build when the PDF is there. `only` blocks are resolved as pages are written, so when the
    PDF came or went since the last build every page is written again (its download menu changes), and none is read
    again: a page read again from the execution cache would lose its executed notebook's outputs."""
    if app.builder.format != "html":
        return []
    offered = built_pdf(app).is_file()
    if offered:
        app.tags.add(PDF_TAG)
    if getattr(env, "rope_pdf_offered", None) == offered:
        return []
    env.rope_pdf_offered = offered
    return sorted(env.found_docs)


def offer_the_pdf(app, pagename, templatename, context, doctree):
    """Runs after the theme built its download menu: the PDF of the whole book, on every page, when there is one."""
    if not app.tags.has(PDF_TAG):
        return
    buttons_of_group(context, "download-buttons").append({
        "type": "link", "url": context["pathto"](pdf_name(app.config), 1), "text": ".pdf",
        "tooltip": text(site_language(app), en="Download the book as PDF", zh="下载本书 PDF"), "icon": "fas fa-file-pdf", "label": "download-book-pdf-button",
    })


def copy_the_pdf(app, exception):
    """The built PDF into the site's root; a copy left there by an earlier build goes when the PDF has."""
    if exception is not None or app.builder.format != "html":
        return
    pdf = built_pdf(app)
    if app.tags.has(PDF_TAG):
        shutil.copyfile(pdf, Path(app.outdir) / pdf.name)
    else:
        (Path(app.outdir) / pdf.name).unlink(missing_ok=True)


def setup(app):
    app.add_post_transform(PrintedBook)
    app.connect("env-updated", tag_the_pdf)
    app.connect("html-page-context", offer_the_pdf, priority=560)
    app.connect("build-finished", copy_the_pdf)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
