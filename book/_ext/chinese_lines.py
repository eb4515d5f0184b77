"""Chinese text without the line breaks of its source.

Chinese is written without spaces, but a browser shows a line break of the source between two Chinese characters as
one, and beside full-width punctuation, which carries its own space, as a second gap ("搜索。 Men 等人"). So the
Chinese edition drops those breaks wherever it is shown: the site's pages (`book_site.JoinChineseLines`, on the
text of every page), the student editions (`classroom_markdown`) and the slide decks (`slides`), whose Markdown a
browser renders too. Between a Chinese character and Latin text the space stays, as Chinese typesetting has it.
"""

from __future__ import annotations

import re

FULL_WIDTH = "\u2018\u2019\u201c\u201d\u2014\u2026\u3000-\u303f\uff00-\uffef"
"""Chinese punctuation: the quotation marks, dash and ellipsis Chinese sets full width (‘’“”—…), the CJK symbols
(。、「」) and the full-width forms (，；：（）)."""
CHINESE = "\u4e00-\u9fff" + FULL_WIDTH
"""Chinese characters and Chinese punctuation."""
LINE_BREAK = re.compile(
    rf"(?<=[{CHINESE}])[ \t]*\n[ \t]*(?=[{CHINESE}])|(?<=[{FULL_WIDTH}])[ \t]*\n[ \t]*(?=\S)|[ \t]*\n[ \t]*(?=[{FULL_WIDTH}])"
)
"""A line break between two Chinese characters, or next to Chinese punctuation (the spaces around it included)."""


def join_chinese_lines(words: str) -> str:
    """`words` without the line breaks that stand between two Chinese characters, or next to Chinese punctuation."""
    return LINE_BREAK.sub("", words)


QUOTED = re.compile(r"^((?:[ \t]*>)*)[ \t]*(.*)$")
"""A Markdown line: its block-quote markers, then its text without indentation."""
NOT_PARAGRAPH = re.compile(r"$|#|<|\||`{3}|~{3}|\$\$")
"""What begins a line that belongs to no paragraph: nothing (a blank line), a heading, HTML, a table row, a code fence,
display math."""
LIST_ITEM = re.compile(r"[-*+][ \t]|\d+[.)][ \t]")
"""What begins a list item: a paragraph of its own, whose indented lines follow it."""


def join_markdown_lines(markdown: str) -> str:
    """`markdown` with each paragraph's lines joined where `join_chinese_lines` drops the break between them.

    A line joins the one before when both belong to one paragraph (of the same block quote, a list item's indented
    lines included); code blocks, $$ blocks, headings, HTML, list items and table rows keep their lines."""
    out: list[str] = []
    fence, paragraph_of = None, None  # the open code fence or $$; the quote markers of the paragraph the last line ends
    for line in markdown.split("\n"):
        quote, text = QUOTED.match(line).groups()
        quote = quote.replace(" ", "").replace("\t", "")
        if fence:
            out.append(line)
            if (fence == "$$" and "$$" in text) or (fence != "$$" and text.startswith(fence) and not text.strip(fence[0])):
                fence = None
            continue
        opening = re.match(r"`{3,}|~{3,}|\$\$", text)
        if opening:
            closed_at_once = opening.group() == "$$" and "$$" in text[2:]
            fence, paragraph_of = (None if closed_at_once else opening.group()), None
            out.append(line)
            continue
        if paragraph_of == quote and not NOT_PARAGRAPH.match(text) and not LIST_ITEM.match(text):
            joined = join_chinese_lines(f"{out[-1]}\n{text}")
            if "\n" not in joined:
                out[-1] = joined
                continue
        out.append(line)
        paragraph_of = None if NOT_PARAGRAPH.match(text) else quote
    return "\n".join(out)
