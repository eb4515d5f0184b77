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
3. Two PDFs from one LaTeX file. The student's PDF (`<name>.pdf`) is the printed book for students: the exercises
   keep their statements and hints, and their solutions (sphinx-exercise's `solution` blocks) and the teacher's
   guide are left out. The teacher's PDF (`<name>-teacher.pdf`) is the same book with both. Each solution and the
   guide sit between `\ifropeteacher` and `\fi`; the build writes `<name>-teacher.tex`, which says
   `\ropeteacheredition` and inputs `<name>.tex`, and the LaTeX Makefile compiles every .tex of the folder. A link to
   the guide prints as its words alone in the student's PDF.
4. Links to exercises. sphinx-exercise labels an exercise `exercise:<label>` in LaTeX, while a `{ref}` to it (the
   teacher's guide's homework table) points at `<page>:<label>`, as a reference to any other target does; each
   exercise gets that label too, so the PDF's links to exercises land on them.

For the HTML build: the website offers the two PDFs when they were built. The build copies them from the LaTeX
build's folder beside the HTML folder (`_build/latex`) into the site's root, every page's download menu links both,
and the pages' `only` blocks tagged `book_pdf` (the introduction's download links) are kept. Without that PDF (`make html`, which needs no
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
from rope_lib.teach.shared.language import text

HIDDEN_INPUT_MODES = ("input", "input+output", "all")
"""MyST-NB's `hide_mode` of cells tagged hide-input, hide-input and hide-output together, and hide-cell."""


def latex(code: str) -> nodes.raw:
    return nodes.raw("", code + "\n", format="latex")


TEACHER_SUFFIX = "-teacher"
"""The teacher's PDF is the student's name with this before its suffix."""
TEACHER_SWITCH = r"""
\newif\ifropeteacher
\ifdefined\ropeteacheredition\ropeteachertrue\fi
"""
"""The preamble's switch (book_pdf.py): true in the teacher's PDF, whose .tex defines \\ropeteacheredition."""
GUIDE = "teachers_guide"
"""The teacher's guide's page name (book/teachers_guide, and teachers_guide in the Chinese edition)."""


def teacher_only(node: nodes.Node) -> None:
    """Print `node` in the teacher's PDF alone."""
    parent = node.parent
    parent.insert(parent.index(node), latex(r"\ifropeteacher"))
    parent.insert(parent.index(node) + 1, latex(r"\fi"))


def is_the_guide(docname: str) -> bool:
    return docname.split("/")[-1] == GUIDE


class PrintedBook(SphinxPostTransform):
    """The LaTeX build's pass over the assembled book; see the module's docstring."""

    builders = ("latex",)
    default_priority = 900  # after every reference and exercise title is resolved

    def run(self, **kwargs) -> None:
        self.hide_hidden_inputs()
        self.links_to_the_guide_as_words()
        self.solutions_and_guide_for_the_teacher()
        self.label_the_exercises()
        self.mark_the_matter()

    def hide_hidden_inputs(self) -> None:
        for cell in list(self.document.findall(nodes.container)):
            if cell.get("nb_element") == "cell_code" and cell.get("hide_mode") in HIDDEN_INPUT_MODES:
                for source in [child for child in cell.children if child.get("nb_element") == "cell_code_source"]:
                    cell.remove(source)

    def solutions_and_guide_for_the_teacher(self) -> None:
        for solution in list(self.document.findall(solution_node)):
            teacher_only(solution)
        for page in list(self.document.findall(addnodes.start_of_file)):
            if is_the_guide(page["docname"]):
                teacher_only(page)

    def links_to_the_guide_as_words(self) -> None:
        """A link from outside the guide into it: the link in the teacher's PDF, its words in the student's."""
        inside = {id(node) for page in self.document.findall(addnodes.start_of_file) if is_the_guide(page["docname"])
                  for node in page.findall(nodes.reference)}
        for reference in list(self.document.findall(nodes.reference)):
            target = reference.get("refid") or reference.get("refuri") or ""
            if GUIDE not in target or id(reference) in inside:
                continue
            parent, at = reference.parent, reference.parent.index(reference)
            words = nodes.inline("", reference.astext())
            for offset, node in enumerate([nodes.raw("", r"\ifropeteacher{}", format="latex"), reference,
                                           nodes.raw("", r"\else{}", format="latex"), words,
                                           nodes.raw("", r"\fi{}", format="latex")]):
                if node is reference:
                    continue
                parent.insert(at + offset, node)

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
    """The student's PDF's file name: the LaTeX document's (latex_documents' targetname in _config.yml), .tex → .pdf."""
    return str(Path(config.latex_documents[0][1]).with_suffix(".pdf"))


def teacher_pdf_name(config) -> str:
    """The teacher's PDF's file name: the student's with TEACHER_SUFFIX before .pdf."""
    name = Path(pdf_name(config))
    return name.stem + TEACHER_SUFFIX + name.suffix


def built_pdfs(app) -> list[Path]:
    """The two PDFs the LaTeX build wrote, the student's first, in `_build/latex` beside the HTML folder."""
    folder = Path(app.outdir).parent / "latex"
    return [folder / pdf_name(app.config), folder / teacher_pdf_name(app.config)]


def switch_in_the_preamble(app, config) -> None:
    config.latex_elements["preamble"] = config.latex_elements.get("preamble", "") + TEACHER_SWITCH


def write_the_teacher_s_tex(app, exception) -> None:
    """Beside the book's .tex, the teacher's: the switch turned on, then the book; `make all-pdf` compiles both."""
    if exception is not None or app.builder.format != "latex":
        return
    book = Path(app.config.latex_documents[0][1])
    (Path(app.outdir) / f"{book.stem}{TEACHER_SUFFIX}.tex").write_text(
        f"% The teacher's PDF: the book with its solutions and the teacher's guide (book/_ext/book_pdf.py).\n"
        f"\\def\\ropeteacheredition{{}}\n\\input{{{book.name}}}\n")


PDF_TAG = "book_pdf"
"""The Sphinx tag set when the HTML build finds the PDF: `{only} book_pdf` blocks show only then."""


def tag_the_pdf(app, env) -> list[str]:
    """Once the HTML build has read its pages (Jupyter Book sets the PDF's name after Sphinx starts), and before it
    writes them: tag the build when the PDF is there. `only` blocks are resolved as pages are written, so when the
    PDF came or went since the last build every page is written again (its download menu changes), and none is read
    again: a page read again from the execution cache would lose its executed notebook's outputs."""
    if app.builder.format != "html":
        return []
    offered = all(pdf.is_file() for pdf in built_pdfs(app))
    if offered:
        app.tags.add(PDF_TAG)
    if getattr(env, "rope_pdf_offered", None) == offered:
        return []
    env.rope_pdf_offered = offered
    return sorted(env.found_docs)


def offer_the_pdf(app, pagename, templatename, context, doctree):
    """Runs after the theme built its download menu: the two PDFs of the whole book, on every page, when there are."""
    if not app.tags.has(PDF_TAG):
        return
    lang = site_language(app)
    buttons_of_group(context, "download-buttons").extend([{
        "type": "link", "url": context["pathto"](pdf_name(app.config), 1), "text": text(lang, en=".pdf (students)", zh=".pdf（学生版）"),
        "tooltip": text(lang, en="Download the book as PDF, for students: exercises and hints, no solutions",
                        zh="下载本书 PDF（学生版）：有练习和提示，没有解答"),
        "icon": "fas fa-file-pdf", "label": "download-book-pdf-button",
    }, {
        "type": "link", "url": context["pathto"](teacher_pdf_name(app.config), 1), "text": text(lang, en=".pdf (teachers)", zh=".pdf（教师版）"),
        "tooltip": text(lang, en="Download the teacher's PDF: the book with the solutions and the teacher's guide",
                        zh="下载教师版 PDF：含解答和教师指南"),
        "icon": "fas fa-file-pdf", "label": "download-teacher-pdf-button",
    }])


def copy_the_pdf(app, exception):
    """The built PDFs into the site's root; copies left there by an earlier build go when the PDFs have."""
    if exception is not None or app.builder.format != "html":
        return
    for pdf in built_pdfs(app):
        if app.tags.has(PDF_TAG):
            shutil.copyfile(pdf, Path(app.outdir) / pdf.name)
        else:
            (Path(app.outdir) / pdf.name).unlink(missing_ok=True)


def setup(app):
    app.add_post_transform(PrintedBook)
    app.connect("config-inited", switch_in_the_preamble)
    app.connect("build-finished", write_the_teacher_s_tex)
    app.connect("env-updated", tag_the_pdf)
    app.connect("html-page-context", offer_the_pdf, priority=560)
    app.connect("build-finished", copy_the_pdf)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
