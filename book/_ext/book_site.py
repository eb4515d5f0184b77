"""Site fixes for the book's HTML pages, loaded by Jupyter Book as a local Sphinx extension.

1. sphinx-thebe registers its configuration script twice under Jupyter Book 1.x; the
second copy re-declares a `const` and the browser reports a SyntaxError on every
page (the two copies differ only in a filename of None and ""). Each page keeps
the first copy of every script.

2. The bibliography is a `role="list"` whose entries carry the deprecated ARIA
role `doc-biblioentry`, so screen readers get a list with no items (axe:
aria-required-children). The entries become list items.

3. Each chapter offers its executed notebook (.ipynb, outputs included) in the
page's download menu, next to its MyST source: the notebook MyST-NB wrote
while executing the chapter is copied beside the sources.

4. A chapter with exercises also offers its student edition there, the notebook
without the solutions that student_notebooks.py writes beside the sources, and
its Binder and JupyterHub buttons open that edition (binder/postBuild writes it
on Binder; on a hub, CONTRIBUTING.md says how).

5. The book has two editions, English (the repository root's _config.yml, pages
under book/) and Chinese (book/zh/_config.yml, built into the site's zh/). Each
page opens with a link to the same page in the other edition, and names it as a
`<link rel="alternate" hreflang>` too; `rope_other_edition` in the config says
where the other edition's sources and pages are. The words this extension adds
to a page (tooltips, that link) are in the edition's language.

6. The Chinese edition's search index splits its text into words with jieba
(Sphinx does, when jieba is installed); the terms of its glossary
(book/zh/glossary.md) are added to jieba's dictionary first, so that a reader who
searches for 外推 or 旋转位置编码 finds the pages that use them.

7. The Chinese edition's text holds no line break of the source between Chinese
characters or next to Chinese punctuation, which a browser would show as a gap
(chinese_lines.py); code, math and raw HTML keep theirs.

8. The book's title, at the top of the sidebar, sits inside a landmark (a `<nav>` named by the title), as the rest of
the page does: the theme's component is wrapped by templates/navbar-logo.html (axe: region).

9. Every page's footer says the licences: the code under MIT, the text and figures under CC BY 4.0, linking the
licence files in the repository that `repository: url` in _config.yml names (the one place that sets it), in the
edition's language.
"""

import html
import re
import shutil
from pathlib import Path

from docutils import nodes
from sphinx.transforms.post_transforms import SphinxPostTransform

from chinese_lines import join_chinese_lines
from rope_lib.teach.shared.language import text
from student_notebooks import offers_a_student_edition, student_notebook_name

EXECUTED_NOTEBOOKS = "jupyter_execute"
"""Where MyST-NB writes each executed notebook, beside the HTML output folder."""
STUDENT_LAUNCHERS = ("Binder", "JupyterHub")
"""The launch buttons that open a chapter's student edition: the theme's urlpath ends in the chapter's source."""


CC_BY = "https://creativecommons.org/licenses/by/4.0/"


def licence_footer(repository: str, branch: str, lang: str) -> str:
    """The footer's HTML: which licence covers what, with links to the licence files of the repository."""
    files = f"{repository.rstrip('/')}/blob/{branch}"
    return text(
        lang,
        en=f'<p>Code: <a href="{files}/LICENSE">MIT licence</a>. Text and figures: <a href="{CC_BY}">CC BY 4.0</a> '
           f'(<a href="{files}/LICENSE-CC-BY-4.0">full text</a>).</p>',
        zh=f'<p>代码：<a href="{files}/LICENSE">MIT 许可证</a>。文字与图：<a href="{CC_BY}">CC BY 4.0</a>'
           f'（<a href="{files}/LICENSE-CC-BY-4.0">全文</a>）。</p>',
    )


def wrap_the_title_in_a_landmark(app, config) -> None:
    config.templates_path.append(str(Path(__file__).parent / "templates"))


def set_the_licence_footer(app, config) -> None:
    options = config.html_theme_options
    options["extra_footer"] = licence_footer(options["repository_url"], options.get("repository_branch") or "main",
                                             site_language(app))


def keep_first_copy_of_each_script(app, pagename, templatename, context, doctree):
    seen, unique = set(), []
    for script in context.get("script_files", []):
        key = (str(getattr(script, "filename", script) or ""), getattr(script, "priority", None),
               tuple(sorted(getattr(script, "attributes", {}).items())))
        if key not in seen:
            seen.add(key)
            unique.append(script)
    context["script_files"] = unique


def bibliography_entries_as_list_items(app, pagename, templatename, context, doctree):
    if "body" in context:
        context["body"] = context["body"].replace('role="doc-biblioentry"', 'role="listitem"')


def site_language(app) -> str:
    """"zh" for the Chinese edition (language zh_CN), "en" otherwise: the language of the words the extensions add."""
    return "zh" if (app.config.language or "en").startswith("zh") else "en"


def other_edition_page(app, pagename: str) -> str | None:
    """The same page of the other edition, as a path from this edition's site root ("zh/rope_2d.html",
    "../book/rope_2d.html"); None for a page the other edition does not have (the glossary is Chinese only)."""
    other = app.config.rope_other_edition
    name = Path(pagename).name
    if not (Path(app.confdir) / other["source"] / f"{name}.md").is_file():
        return None
    return f"{other['site']}/{name}.html"


def link_the_other_edition(app, pagename, templatename, context, doctree):
    other = app.config.rope_other_edition
    if not other or "body" not in context:
        return
    page = other_edition_page(app, pagename)
    if page is None:
        return
    url = html.escape(context["pathto"](page, 1), quote=True)
    hreflang = html.escape(other["lang"], quote=True)
    title = text(site_language(app), en="The same page in Chinese", zh="本页的英文版")
    context["body"] = (f'<p class="rope-other-edition"><a href="{url}" hreflang="{hreflang}" lang="{hreflang}" '
                       f'title="{html.escape(title, quote=True)}">{html.escape(other["name"])}</a></p>\n' + context["body"])
    context["metatags"] = context.get("metatags", "") + f'\n<link rel="alternate" hreflang="{hreflang}" href="{url}">'


DECK_TAG = re.compile(r'^\+\+\+ \{"tags": \[[^\]]*"slide"', re.M)
"""A markdown cell tagged for a slide: a chapter holding one has a deck (book/_ext/slides.py)."""


def link_the_deck(app, pagename, templatename, context, doctree):
    """A chapter with a lecture deck links it at the top of its page, beside the other edition."""
    source = Path(app.env.doc2path(pagename))
    if "body" not in context or not source.is_file() or not DECK_TAG.search(source.read_text()):
        return
    url = html.escape(context["pathto"](f"_static/slides/{Path(pagename).name}.slides.html", 1), quote=True)
    words = text(site_language(app), en="Slides for a lecture on this chapter", zh="本章的讲课幻灯片")
    context["body"] = f'<p class="rope-deck"><a href="{url}">{html.escape(words)}</a></p>\n' + context["body"]


GLOSSARY = "glossary.md"
"""The Chinese edition's glossary, beside its pages: a table whose second column holds the Chinese terms."""


def glossary_terms(glossary: Path) -> list[str]:
    """The Chinese terms of the glossary's table, each alternative on its own ("查询 / 键 / 值" gives three), without the
    English in parentheses."""
    terms = []
    for row in glossary.read_text().splitlines():
        cells = [cell.strip() for cell in row.strip().strip("|").split("|")]
        if len(cells) < 2 or cells[0] == "English" or not re.search(r"[\u4e00-\u9fff]", cells[1]):  # not the header
            continue
        for term in re.split(r"\s*[/、]\s*", re.sub(r"（[^）]*）", "", cells[1])):
            if re.fullmatch(r"[\u4e00-\u9fff\w-]+", term) and re.search(r"[\u4e00-\u9fff]", term):
                terms.append(term)
    return terms


def teach_jieba_the_glossary(app):
    if site_language(app) != "zh" or not (Path(app.confdir) / GLOSSARY).is_file():
        return
    import jieba

    for term in glossary_terms(Path(app.confdir) / GLOSSARY):
        jieba.add_word(term)


def index_of(node: nodes.Node) -> int:
    """Where `node` sits among its parent's children, found by identity: Text nodes compare as strings, so
    `parent.index` would find the first equal text instead."""
    return next(i for i, child in enumerate(node.parent.children) if child is node)


class JoinChineseLines(SphinxPostTransform):
    """The Chinese edition's text without the line breaks `join_chinese_lines` drops (see 7. above). A post-transform,
    so that it sees the words a reference resolved to (the Chinese title a {ref} shows), not the label it named."""

    default_priority = 900
    KEEP = (nodes.literal_block, nodes.literal, nodes.raw, nodes.math, nodes.math_block, nodes.comment)

    def run(self, **kwargs) -> None:
        if site_language(self.app) != "zh":
            return
        for node in list(self.document.findall(nodes.Text)):
            parent = node.parent
            if parent is None or isinstance(parent, self.KEEP) or "\n" not in node:
                continue
            at = index_of(node)
            before = parent[at - 1].astext()[-1:] if at > 0 else ""  # the characters either side, in the nodes around it:
            after = parent[at + 1].astext()[:1] if at + 1 < len(parent) else ""  # a break at its edge stands between them
            joined = join_chinese_lines(before + str(node) + after)[len(before) : -len(after) or None]
            if not joined:
                parent.pop(at)
            elif joined != str(node):
                parent[at] = nodes.Text(joined)


def executed_notebook(app, docname: str) -> Path:
    return Path(app.outdir).parent / EXECUTED_NOTEBOOKS / f"{docname}.ipynb"


def offer_the_notebook(app, pagename, templatename, context, doctree):
    """Runs before the theme builds its download menu, which lists `ipynb_source` when it is set."""
    if executed_notebook(app, pagename).is_file():
        context["ipynb_source"] = f"{pagename}.ipynb"


def buttons_of_group(context, label: str) -> list[dict]:
    return next((group["buttons"] for group in context.get("header_buttons", []) if group.get("label") == label), [])


def offer_the_student_edition(app, pagename, templatename, context, doctree):
    """Runs after the theme built its download and launch menus."""
    if not offers_a_student_edition(app, pagename):
        return
    student = student_notebook_name(pagename)
    downloads = buttons_of_group(context, "download-buttons")
    downloads.insert(1, {
        "type": "link", "url": f"{context['pathto']('_sources', 1)}/{student}", "text": ".student.ipynb",
        "tooltip": text(site_language(app), en="Download the student notebook (the exercises without their solutions)",
                        zh="下载学生版笔记本（只有练习，没有解答）"), "icon": "fas fa-pencil",
        "label": "download-student-notebook-button",
    })
    source = re.escape(f"{pagename}{Path(app.env.doc2path(pagename)).suffix}")
    for button in buttons_of_group(context, "launch-buttons"):
        if button.get("text") in STUDENT_LAUNCHERS:
            button["url"] = re.sub(rf"(urlpath=[^&]*/){source}(?=&|$)", lambda m: m.group(1) + student, button["url"])


def copy_executed_notebooks(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    for docname in app.env.found_docs:
        notebook = executed_notebook(app, docname)
        if notebook.is_file():
            target = Path(app.outdir) / "_sources" / f"{docname}.ipynb"
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(notebook, target)


def setup(app):
    app.add_config_value("rope_other_edition", None, "html")
    app.connect("config-inited", set_the_licence_footer)
    app.connect("config-inited", wrap_the_title_in_a_landmark)
    app.connect("builder-inited", teach_jieba_the_glossary)
    app.add_post_transform(JoinChineseLines)
    app.connect("html-page-context", link_the_deck)
    app.connect("html-page-context", link_the_other_edition)
    app.connect("html-page-context", offer_the_notebook, priority=450)
    app.connect("html-page-context", offer_the_student_edition, priority=550)
    app.connect("build-finished", copy_executed_notebooks)
    app.connect("html-page-context", keep_first_copy_of_each_script)
    app.connect("html-page-context", bibliography_entries_as_list_items)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
