"""A listing of rope_lib shows the computation: the `@checked_by(...)` line above a function, which checks its
arguments at every call, is left out of every `{literalinclude}`, on the site, in the PDF (this extension replaces
Sphinx's `literalinclude` directive) and in the student editions (classroom_markdown.py calls `without_checks`).
The introduction says once where arguments are checked.
"""

from __future__ import annotations

import re

CHECK_DECORATOR = re.compile(r"^\s*@checked_by\(")
"""The first line of the decorator that runs a function's argument checks (`checked_by`, rope_lib/_validate.py)."""


def without_checks(lines: list[str]) -> list[str]:
    """`lines` without any `@checked_by(...)` decorator, however many lines its arguments take."""
    kept, depth = [], 0
    for line in lines:
        if depth == 0 and CHECK_DECORATOR.match(line):
            depth = line.count("(") - line.count(")")
            continue
        if depth > 0:
            depth += line.count("(") - line.count(")")
            continue
        kept.append(line)
    return kept


def setup(app):
    from docutils import nodes
    from sphinx.directives.code import LiteralInclude

    class Listing(LiteralInclude):
        """Sphinx's literalinclude, its code without the argument checks' decorator."""

        def run(self):
            result = super().run()
            for top in result:
                for block in top.findall(nodes.literal_block):
                    code = block.astext()
                    shown = "\n".join(without_checks(code.split("\n")))
                    if shown != code:
                        block.rawsource = shown
                        block.children = [nodes.Text(shown)]
            return result

    app.add_directive("literalinclude", Listing, override=True)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
