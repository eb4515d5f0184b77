"""Another project's code as it is installed: the source of a function, method or class, read with `inspect.getsource`
when the page is built, numbered and highlighted, so that a chapter reads Meta's or Hugging Face's real lines while the
repository holds no copy of them (chapter "The implementation in LLaMA").

The prose names a line by a fragment of it (`SourceListing.line_of`), never by a typed number: if the installed
package changes, the number follows it, and a fragment that is gone or ambiguous stops the build.
"""

from __future__ import annotations

import ast
import html
import importlib.metadata
import inspect
import re
import textwrap

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer

from .language import require_language, text


_NUMBER_IN_EMPHASIS = re.compile(r'(<span class="hll">)(<span class="linenos">\s*\d+</span>)')
"""Pygments writes an emphasized line as <hll><linenos>n</linenos>code</hll>; the number is moved out in front."""


def _distribution(module_name: str) -> str:
    """'llama-models 0.3.0' for a module of an installed distribution; the top-level package name otherwise."""
    top = module_name.split(".")[0]
    for name in importlib.metadata.packages_distributions().get(top, []):
        return f"{name} {importlib.metadata.version(name)}"
    return top


class SourceListing:
    """The source of `obj` (a function, method or class), lines numbered from 1 at its first line (a decorator, if
    it has one). `start` and `stop`, fragments of two of its lines, show only the statements from the one that holds
    `start` to the end of the one that holds `stop`, numbered as in the whole; `emphasize`, fragments of lines, marks
    those lines; `lang`, the language of the caption.

    Shows itself highlighted in Jupyter and on the website (HTML, the classes Sphinx's own code blocks use) and
    numbered as plain text elsewhere.
    """

    def __init__(self, obj, *, start: str | None = None, stop: str | None = None, emphasize=(), lang: str = "en"):
        self.lang = require_language(lang)
        if not (inspect.isfunction(obj) or inspect.ismethod(obj) or inspect.isclass(obj)):
            raise TypeError(f"obj must be a function, method or class, got {type(obj).__name__}")
        self.name = obj.__qualname__
        self.module = obj.__module__
        self.lines = textwrap.dedent(inspect.getsource(obj)).splitlines()  # the whole object, whatever is shown
        self.first = 1 if start is None else self._statement(self.line_of(start))[0]
        self.last = len(self.lines) if stop is None else self._statement(self.line_of(stop))[1]
        if self.last < self.first:
            raise ValueError(f"stop={stop!r} (line {self.last}) comes before start={start!r} (line {self.first}) in {self.name}")
        if isinstance(emphasize, str):
            raise TypeError(f"emphasize must be a list of line fragments, got the string {emphasize!r}")
        self.emphasized = tuple(self.line_of(fragment) for fragment in emphasize)
        outside = [n for n in self.emphasized if not self.first <= n <= self.last]
        if outside:
            raise ValueError(f"emphasize names lines {outside} of {self.name}, outside the lines shown ({self.first}–{self.last})")

    def line_of(self, fragment: str) -> int:
        """The number of the one line of the source that contains `fragment`."""
        if not isinstance(fragment, str) or not fragment.strip():
            raise TypeError(f"fragment must be a non-empty string, got {fragment!r}")
        found = [n for n, line in enumerate(self.lines, start=1) if fragment in line]
        if len(found) != 1:
            where = "no line" if not found else f"{len(found)} lines ({', '.join(map(str, found))})"
            raise ValueError(f"fragment {fragment!r} is in {where} of {self.module}.{self.name}; name exactly one line")
        return found[0]

    def _statement(self, n: int) -> tuple[int, int]:
        """First and last line of the innermost statement that spans line n."""
        spans = [
            (node.lineno, node.end_lineno)
            for node in ast.walk(ast.parse("\n".join(self.lines)))
            if isinstance(node, ast.stmt) and node.lineno <= n <= node.end_lineno
        ]
        return min(spans, key=lambda span: span[1] - span[0])

    def line_text(self, fragment: str) -> str:
        """The line that contains `fragment`, without its indentation."""
        return self.lines[self.line_of(fragment) - 1].strip()

    @property
    def shown(self) -> list[str]:
        """The lines shown, first to last."""
        return self.lines[self.first - 1 : self.last]

    @property
    def caption(self) -> str:
        name, distribution = f"{self.module}.{self.name}", _distribution(self.module)
        return text(self.lang, en=f"{name} ({distribution}), read from the installed package",
                    zh=f"{name}（{distribution}），读自已安装的包")

    def __str__(self) -> str:
        width = len(str(self.last))
        numbered = (f"{n:>{width}}{'*' if n in self.emphasized else ' '} {line}" for n, line in enumerate(self.shown, start=self.first))
        return self.caption + "\n" + "\n".join(numbered)

    __repr__ = __str__

    def _repr_html_(self) -> str:
        formatter = HtmlFormatter(
            linenos="inline", linenostart=self.first, hl_lines=[n - self.first + 1 for n in self.emphasized], cssclass="highlight"
        )
        code = highlight("\n".join(self.shown) + "\n", PythonLexer(), formatter)
        # an emphasized line's number stays on the plain background, where its colour keeps its contrast (dark theme)
        code = _NUMBER_IN_EMPHASIS.sub(r'\2\1', code)
        return (
            '<div class="literal-block-wrapper docutils container">'
            # the caption's dotted name may break after a dot, so that it wraps on a phone instead of running off
            f'<div class="code-block-caption"><span class="caption-text">{html.escape(self.caption).replace(".", ".<wbr>")}</span></div>'
            f'<div class="highlight-python notranslate">{code}</div></div>'
        )
