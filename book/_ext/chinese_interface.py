"""The Chinese edition's interface in Chinese, and in Chinese order, where the theme and the extensions write English.
Loaded by Jupyter Book as a local Sphinx extension by both editions; it changes nothing in the English one.

1. The toggles of hidden code cells (MyST-NB: "Show code cell source") name what they show: 显示代码, 显示输出,
   显示代码单元格; the dropdowns' hint (sphinx-togglebutton: "Click to show") reads 点击显示.
2. Titles: a solution's is "练习 1.1 的解答", where sphinx-exercise writes "解答 练习 1.1", and the brackets around
   the title of an exercise or of a solution's exercise are full-width, （…）, as book/zh/_config.yml has them around
   a definition's or a theorem's (proof_title_format), with no space before them (Sphinx ends a title's number with
   one), as the brackets of the Chinese text around them are.
3. Punctuation that follows inline math stays on its line: a full stop or a comma that starts a line is a slip
   Chinese typesetting does not allow, and a browser may break the line between a formula and the punctuation after
   it. The formula and the punctuation are kept together (class `rope-nobreak`, book.css).
"""

from __future__ import annotations

import re

from docutils import nodes
from myst_nb.sphinx_ import HideCodeCellNode
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx_exercise.nodes import exercise_enumerable_node, exercise_node, solution_node

from book_site import index_of, site_language

CELL_PROMPTS = {"source": "代码", "output": "输出", "outputs": "输出", "content": "代码单元格"}
"""What a hidden cell's toggle shows or hides, by MyST-NB's word for it ({type} in its prompts)."""

CLOSING_PUNCTUATION = "。，、；：？！）》」』”’…"
"""Punctuation that may not start a line in Chinese typesetting (the start of the line-breaking rules' list)."""

OPENING_BRACKET, CLOSING_BRACKET = "（", "）"


def chinese_words(app, config) -> None:
    """config-inited, before sphinx-togglebutton reads its hints and MyST-NB its prompts: the Chinese words."""
    if site_language(app) != "zh":
        return
    config.togglebutton_hint, config.togglebutton_hint_hide = "点击显示", "点击隐藏"
    config.nb_code_prompt_show = config.nb_code_prompt_hide = "{type}"  # ChineseInterface words them


def replace_text(old: nodes.Text, new: str | None) -> None:
    """Put `new` (None: nothing) where the Text node `old` is."""
    parent, at = old.parent, index_of(old)
    if new is None:
        parent.pop(at)
    else:
        parent[at] = nodes.Text(new)


def full_width_brackets(title: nodes.Element) -> None:
    """The " (" and ")" that sphinx-exercise puts around a subtitle, anywhere in `title`, as （ and ）."""
    for text in list(title.findall(nodes.Text)):
        if str(text) in (" (", ")"):
            replace_text(text, OPENING_BRACKET if str(text) == " (" else CLOSING_BRACKET)


class ChineseInterface(SphinxPostTransform):
    """Items 1 to 3 of the module's docstring, on every page of the Chinese edition."""

    default_priority = 250  # after MyST-NB's hidden cells (199) and sphinx-exercise's titles (20 to 22)

    def run(self, **kwargs) -> None:
        if site_language(self.app) != "zh":
            return
        for toggle in self.document.findall(HideCodeCellNode):
            toggle["prompt_show"] = "显示" + CELL_PROMPTS[toggle["prompt_show"]]
            toggle["prompt_hide"] = "隐藏" + CELL_PROMPTS[toggle["prompt_hide"]]
        for exercise in self.document.findall(lambda n: isinstance(n, (exercise_node, exercise_enumerable_node))):
            full_width_brackets(exercise.children[0])
        for solution in self.document.findall(solution_node):
            self.solution_title(solution.children[0])
        if self.app.builder.format == "html":  # XeLaTeX's Chinese line breaking keeps punctuation off a line's start
            for math in list(self.document.findall(nodes.math)):
                self.keep_with_its_punctuation(math)

    @staticmethod
    def solution_title(title: nodes.title) -> None:
        """[解答, reference( 练习 1.1 (subtitle))] → [reference(练习 1.1（subtitle）), 的解答]."""
        references = [child for child in title.children if isinstance(child, nodes.reference)]
        if len(references) != 1:
            return  # a solution titled on its own ("solution_follow_exercise"): nothing to reorder
        reference = references[0]
        full_width_brackets(reference)
        first = reference.children[0]
        if isinstance(first, nodes.Text):
            replace_text(first, str(first).lstrip())
        spaced = re.search(r"[0-9A-Za-z]$", reference.astext())  # "练习 1.1 的解答", "练习 1.1（…）的解答"
        title.children = []
        title += [reference, nodes.Text(" 的解答" if spaced else "的解答")]

    @staticmethod
    def keep_with_its_punctuation(math: nodes.math) -> None:
        """[…, math, "。后文"] → […, inline.rope-nobreak(math, "。"), "后文"]."""
        parent = math.parent
        at = parent.index(math)
        after = parent[at + 1] if at + 1 < len(parent) else None
        punctuation = re.match(f"[{re.escape(CLOSING_PUNCTUATION)}]+", str(after)) if isinstance(after, nodes.Text) else None
        if punctuation is None:
            return
        replace_text(after, str(after)[punctuation.end():] or None)
        together = nodes.inline(classes=["rope-nobreak"])
        parent.replace(math, together)
        together += [math, nodes.Text(punctuation.group())]


def no_space_before_a_bracket(app, pagename, templatename, context, doctree) -> None:
    """Sphinx's HTML writer ends every number of a title ("定义 2.1 ") with a space, which before （ is a gap."""
    if site_language(app) == "zh" and "body" in context:
        context["body"] = context["body"].replace(f' </span>{OPENING_BRACKET}', f'</span>{OPENING_BRACKET}')


def setup(app):
    app.connect("config-inited", chinese_words, priority=400)
    app.add_post_transform(ChineseInterface)
    app.connect("html-page-context", no_space_before_a_bracket)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
