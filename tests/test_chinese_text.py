"""The Chinese edition reads as Chinese text: checked on the sources of every Chinese page (book/zh/*.md) and on the
Chinese words of rope_lib (figures, widgets, the checks' messages). One word for "token" and one for a notebook cell,
Chinese words inside display math, no slanted (italic) Chinese, full-width brackets around Chinese, no space after
full-width punctuation, the seed article's own terms findable by search, and Chinese names for the encodings a
sentence takes from code.

What counts as prose: the text of paragraphs, headings, list items, table cells and the titles of admonitions, tables
and proofs, as MyST parses them with the edition's own extensions; inside it, inline code, inline math, roles
({glue:text}, {ref}, {eq}, {cite}) and link targets are not prose. Code cells, literal includes, display math and raw
output are not prose either, but the Chinese comments and string literals of code cells are words a reader sees."""

import ast
import io
import re
import tokenize

import pytest
import yaml
from markdown_it.renderer import RendererHTML
from myst_parser.config.main import MdParserConfig
from myst_parser.parsers.mdit import create_md_parser

from paths import CHINESE, ROOT, chinese_pages
from rope_lib.teach.shared.language import is_han
from rope_lib.teach.trained_models import encoding_name
from rope_lib.teach.trained_models.figures import ENCODING_NAMES

CONFIG = yaml.safe_load((CHINESE / "_config.yml").read_text())
PARSER = create_md_parser(MdParserConfig(enable_extensions=set(CONFIG["parse"]["myst_enable_extensions"])), RendererHTML)

NOT_PROSE = {"code-cell", "literalinclude", "math", "raw", "bibliography"}
"""Directives whose body is code, display math or raw output."""

TITLED = {"admonition", "table", "exercise"}
"""Directives whose argument is a title a reader sees, besides the proofs (prf:…); other directives' argument is a
label (solution-start) or a condition (only)."""

OPTION = re.compile(r"^:[\w-]+:.*$")
"""A directive's option line (`:class: tip`), not part of its body."""

INLINE_NOT_PROSE = {"code_inline", "math_inline", "myst_role", "html_inline", "image"}
"""Inline tokens that are not prose: each stands as one OBJECT character in `words`."""

OBJECT = "\ufffc"
"""What `words` puts where the reader sees code, math or a role's output instead of prose."""

PROOF_TITLE = CONFIG["sphinx"]["config"].get("proof_title_format", " (%t)")
"""How sphinx-proof writes a proof's title after its name and number ("定义 2.1"): its `proof_title_format`, whose
default is " (%t)"."""


def page_source(page: str) -> str:
    return (ROOT / f"{page}.md").read_text()


def directive(token) -> tuple[str | None, str]:
    """(name, argument) of a fenced block: ("admonition", "提示") for ```{admonition} 提示, (None, info) for ```python."""
    found = re.match(r"^\{([\w:-]+)\}\s*(.*)$", token.info.strip())
    return (found.group(1), found.group(2)) if found else (None, token.info.strip())


def directive_body(token) -> tuple[str, int]:
    """A directive's body without its options, and how many lines of the block come before the body."""
    lines = token.content.split("\n")
    while lines and OPTION.match(lines[0]):
        lines.pop(0)
    return "\n".join(lines), 1 + len(token.content.split("\n")) - len(lines)


def runs(source: str, offset: int = 0):
    """(line, kind, inline tokens) of every run of prose: kind is "text" for a paragraph, list item or table cell,
    "heading", or the directive's name for a directive's title."""
    tokens = PARSER.parse(source)
    for before, token in zip([None] + tokens, tokens):
        line = offset + (token.map[0] + 1 if token.map else 0)
        if token.type in ("fence", "colon_fence"):
            name, argument = directive(token)
            if name is None or name in NOT_PROSE:
                continue
            if argument and (name in TITLED or name.startswith("prf:")):
                yield line, name, PARSER.parseInline(argument)[0].children
            body, skipped = directive_body(token)
            yield from runs(body, line - 1 + skipped)
        elif token.type == "inline":
            yield line, "heading" if before is not None and before.type == "heading_open" else "text", token.children


def words(children) -> str:
    """The words of a run as a reader reads them: code, math and roles as one OBJECT character each, a line break in
    the source as a newline, emphasis and link markers dropped."""
    parts = []
    for child in children:
        if child.type == "text":
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append("\n")
        elif child.type in INLINE_NOT_PROSE:
            parts.append(OBJECT)
    return "".join(parts)


def has_chinese(text: str) -> bool:
    return any(is_han(c) for c in text)


VISIBLE_CODE = {tokenize.COMMENT, tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING)}
"""The tokens of code whose words a reader sees: comments and strings (an f-string's text is its own token from Python
3.12 on)."""


def code_words(source: str):
    """(line, text) of every comment and string literal with Chinese in it, in the page's code cells."""
    for token in PARSER.parse(source):
        if token.type == "fence" and directive(token)[0] == "code-cell":
            body, skipped = directive_body(token)
            lines = ["#" + line if line.lstrip().startswith(("%", "!")) else line for line in body.split("\n")]
            for kind, text, (row, _), *_ in tokenize.generate_tokens(io.StringIO("\n".join(lines) + "\n").readline):
                if kind in VISIBLE_CODE and has_chinese(text):
                    yield token.map[0] + skipped + row, text


def prose(page: str):
    """(line, words) of every run of Chinese prose on the page, then of the Chinese words of its code cells. A run
    without a Chinese character is English on purpose (the glossary's English column) and is left out."""
    source = page_source(page)
    for line, _, children in runs(source):
        if has_chinese(text := words(children)):
            yield line, text
    yield from code_words(source)


def display_math(source: str, offset: int = 0):
    """(line, LaTeX) of every display equation: $$…$$, amsmath environments and {math} directives."""
    for token in PARSER.parse(source):
        line = offset + (token.map[0] + 1 if token.map else 0)
        if token.type in ("fence", "colon_fence"):
            name, _ = directive(token)
            if name == "math":
                yield line, directive_body(token)[0]
            elif name is not None and name not in NOT_PROSE:
                body, skipped = directive_body(token)
                yield from display_math(body, line - 1 + skipped)
        elif token.type in ("math_block", "math_block_label", "amsmath"):
            yield line, token.content


# ---- one word for one thing ------------------------------------------------------------------------------------

TOKEN = re.compile(r"(?<![A-Za-z_])tokens?(?![A-Za-z_])", re.IGNORECASE)
"""The English word, alone: not inside an identifier such as `new_tokens` or `tokenize`."""

GLOSS = "词元（token）"
"""How the glossary lets a chapter gloss 词元 at its first use; after that, only 词元."""


def chinese_strings(path):
    """(line, text) of every string literal with Chinese in it in a Python file (f-strings' literal parts included)."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and has_chinese(node.value):
            yield node.lineno, node.value


REJECTED = {r"单元(?!格)": "单元格", r"几何(数列|级数)": "等比数列", "每十倍": "每个数量级"}
"""Words the Chinese edition does not use (a pattern each), and the one it uses instead: a notebook cell is 单元格
(never 代码单元 or 单元), a geometric sequence 等比数列 (几何数列 is Taiwan usage; 几何级数 is loose), "per decade"
每个数量级."""


def rejected_words(text: str) -> list[str]:
    """What `text` says that the edition says otherwise: "token" for 词元 (but for the first gloss) and REJECTED."""
    found = ["token → 词元"] if TOKEN.search(text.replace(GLOSS, "")) else []
    return found + [f"{re.search(rejected, text).group()} → {used}" for rejected, used in REJECTED.items() if re.search(rejected, text)]


@pytest.mark.parametrize("page", chinese_pages())
def test_one_word_for_one_thing_in_the_chinese_pages(page):
    found = [f"{page}.md:{line}: {rejected_words(text)}: {text}" for line, text in prose(page) if rejected_words(text)]
    assert not found, "\n".join(found)


def test_one_word_for_one_thing_in_rope_libs_chinese():
    """rope_lib writes the Chinese of the figures, the widgets and the checks' messages beside the English."""
    found = [f"{path.relative_to(ROOT)}:{line}: {rejected_words(text)}: {text}" for path in sorted((ROOT / "rope_lib").rglob("*.py"))
             for line, text in chinese_strings(path) if rejected_words(text)]
    assert not found, "\n".join(found)


# ---- words inside display math ---------------------------------------------------------------------------------

TEXT_IN_MATH = re.compile(r"\\(?:text|textrm|mbox)\{([^{}]*)\}")
"""Text set upright in words inside math (\\mathrm{i} and \\operatorname{rotate\\_half} are symbols, not words)."""

SYMBOLS = {"base", r"freqs\_cis", "half", "short", "long", "acc"}
"""The Latin names a Chinese page may keep inside \\text{} in display math, because the text uses them as symbols in
both editions: the rotation base (rope_lib's and Hugging Face's `base`), Meta's table `freqs_cis`, the layout
`half`, LongRoPE's `short` and `long` factors, and the accuracy `acc`. Any other Latin inside \\text{} is words a
reader reads ("otherwise", "bytes"), which a Chinese page writes in Chinese. A single letter is a symbol too."""


def latin_words_in_math(latex: str) -> list[str]:
    return [inner for inner in TEXT_IN_MATH.findall(latex) if re.search(r"[A-Za-z]{2}", inner) and inner not in SYMBOLS]


@pytest.mark.parametrize("page", chinese_pages())
def test_display_math_says_its_words_in_chinese(page):
    found = [f"{page}.md:{line}: {latin_words_in_math(latex)}" for line, latex in display_math(page_source(page))
             if latin_words_in_math(latex)]
    assert not found, "\n".join(found)


def test_latin_words_in_math_are_found_but_symbols_are_not():
    assert latin_words_in_math(r"0 & \text{otherwise.}") == ["otherwise."]
    assert latin_words_in_math(r"\text{bytes} = 2s, \ \text{flop per byte}") == ["bytes", "flop per byte"]
    assert latin_words_in_math(r"\text{base}^{-2i/d}, \operatorname{RoPE}_{\text{half}}, e^{\mathrm{i}x}, \text{其他情况}") == []


# ---- full-width brackets around Chinese --------------------------------------------------------------------------

HALF_AROUND_CHINESE = re.compile(r"\([^()]*[\u4e00-\u9fff][^()]*\)")
"""Half-width brackets around Chinese words: Chinese text takes full-width ones （…）."""


def rendered(kind: str, text: str) -> str:
    """A run as the site shows it: a proof's title inside sphinx-proof's brackets."""
    return PROOF_TITLE.replace("%t", text) if kind.startswith("prf:") else text


def mixed_brackets(kind: str, text: str) -> bool:
    """Half-width brackets around Chinese, or a title (a heading, or a directive's) holding brackets of both widths."""
    return bool(HALF_AROUND_CHINESE.search(text)) or (kind != "text" and bool(set("()") & set(text)) and bool(set("（）") & set(text)))


@pytest.mark.parametrize("page", chinese_pages())
def test_brackets_around_chinese_are_full_width_and_a_title_keeps_to_one_width(page):
    found = [f"{page}.md:{line}: {rendered(kind, words(children))}" for line, kind, children in runs(page_source(page))
             if has_chinese(words(children)) and mixed_brackets(kind, rendered(kind, words(children)))]
    assert not found, "\n".join(found)


def test_mixed_brackets_are_found():
    assert mixed_brackets("prf:definition", " (相对位置目标（RoFormer 式 11）)")
    assert mixed_brackets("text", "位置插值 (PI) 的规则 (见上文)")
    assert not mixed_brackets("text", "位置插值（PI）的规则 (B, T, H, D)") and not mixed_brackets("heading", "LongRoPE (2024)")
    assert mixed_brackets("heading", "二维的 RoPE（RoFormer eq. (12)）")


# ---- no slanted Chinese ----------------------------------------------------------------------------------------


def slanted_chinese(children) -> list[str]:
    """The Chinese text inside *…* or _…_ emphasis: a browser slants it, which Chinese typesetting never does."""
    found, inside = [], None
    for child in children:
        if child.type == "em_open":
            inside = []
        elif child.type == "em_close":
            if has_chinese("".join(inside)):
                found.append("".join(inside))
            inside = None
        elif inside is not None and child.type == "text":
            inside.append(child.content)
    return found


@pytest.mark.parametrize("page", chinese_pages())
def test_no_chinese_is_slanted(page):
    found = [f"{page}.md:{line}: *{span}*" for line, _, children in runs(page_source(page)) for span in slanted_chinese(children)]
    assert not found, "\n".join(found)


def test_slanted_chinese_is_found_but_not_bold_math_or_lists():
    def spans(markdown):
        return [span for _, _, children in runs(markdown) for span in slanted_chinese(children)]

    assert spans("把它们*交换*会怎样？") == ["交换"] and spans("一个 _因果_ 掩码") == ["因果"]
    assert spans("**分头**。简化版本\n\n* 列表项\n* 又一项\n\n$a * b * c$ 与 `x*y*z`，*relative*") == []


# ---- no space after full-width punctuation ---------------------------------------------------------------------

FULL_WIDTH_STOPS = "。，、；：？！）”』」》"
"""Full-width punctuation carries its own space; a space after it (or after an opening bracket or quote) shows as a
gap. A line break in the source is not counted: Chinese pages wrap their source lines anywhere."""

GAP = re.compile(rf"[{FULL_WIDTH_STOPS}（“『「《] +")


@pytest.mark.parametrize("page", chinese_pages())
def test_no_space_after_full_width_punctuation(page):
    found = [f"{page}.md:{line}: {text!r}" for line, text in prose(page) if GAP.search(text)]
    assert not found, "\n".join(found)


# ---- the seed's terms and the glossary -------------------------------------------------------------------------

SEED_TERMS = ("旋转式位置编码", "词嵌入")
"""The seed article's own words for RoPE and for a token's embedding (the book says 旋转位置编码 and 嵌入): a reader
who searches the site for them must find the book."""


def glossary_terms() -> dict[str, str]:
    """The glossary's table: English term → Chinese term."""
    rows = [line for line in (CHINESE / "glossary.md").read_text().splitlines() if line.startswith("| ")][2:]
    return {cells[0]: cells[1] for cells in ([cell.strip() for cell in row.strip("|").split("|")] for row in rows)}


@pytest.mark.parametrize("term", SEED_TERMS)
def test_the_seed_articles_terms_are_in_the_chinese_prose_and_the_glossary(term):
    pages = {page for page in chinese_pages() if any(term in text for _, text in prose(page))}
    assert "book/zh/glossary" in pages and pages - {"book/zh/glossary"}, pages


@pytest.mark.parametrize("term", ["因果掩码", "注意力因子", "动态 NTK", "单元格", "等比数列"])
def test_the_glossary_names_the_terms_the_chapters_use(term):
    assert term in glossary_terms().values()


# ---- encoding names in Chinese sentences -----------------------------------------------------------------------


def test_each_encoding_has_a_chinese_name():
    """A name a Chinese sentence may hold: Chinese words, or the encoding's own acronym (RoPE, NoPE, ALiBi), which the
    glossary leaves untranslated; never an English word such as "sinusoidal"."""
    for encoding, english in ENCODING_NAMES.items():
        chinese = encoding_name(encoding, lang="zh")
        assert has_chinese(chinese) or (chinese == english and re.fullmatch(r"[A-Z][A-Za-z]*[A-Z][A-Za-z]*", english)), chinese


@pytest.mark.parametrize("page", chinese_pages())
def test_a_chinese_page_names_encodings_in_chinese(page):
    """ENCODING_NAMES holds the English names; a Chinese page that puts an encoding into a sentence (a glued value)
    takes its name from encoding_name(…, lang=LANG)."""
    code = "\n".join(token.content for token in PARSER.parse(page_source(page))
                     if token.type == "fence" and directive(token)[0] == "code-cell")
    assert "ENCODING_NAMES" not in code


# ---- quotation marks ------------------------------------------------------------------------------------------------

def straight_quotes(page: str) -> list[str]:
    """Chinese prose that quotes with the straight ASCII mark: Chinese quotes with “ ”, and the site's smart quotes turn
    a straight one after full-width punctuation into a closing mark ("（”cis”")."""
    return [f"{page}.md:{line}: {text!r}" for line, _, children in runs(page_source(page))
            if has_chinese(text := words(children)) and '"' in text]


@pytest.mark.parametrize("page", chinese_pages())
def test_chinese_prose_quotes_with_full_width_marks(page):
    found = straight_quotes(page)
    assert not found, "\n".join(found)


CLOSED_TOO_LATE = re.compile(r"\*\*[^*\n]*?[。：，；！？]\*\*(?=[^\s*\n])")
"""Bold that ends on full-width punctuation with text right after it: CommonMark does not close it there (the closing
`**` follows punctuation and precedes a letter), so the page shows the asterisks. Put the punctuation after the `**`."""


@pytest.mark.parametrize("page", chinese_pages())
def test_bold_closes_before_its_punctuation(page):
    text = (ROOT / f"{page}.md").read_text()
    assert not CLOSED_TOO_LATE.findall(text), f"{page}: {CLOSED_TOO_LATE.findall(text)}"


def test_a_bold_the_page_would_show_raw_is_caught():
    assert CLOSED_TOO_LATE.findall("**配对。**反对称矩阵") and not CLOSED_TOO_LATE.findall("**配对**。反对称矩阵")
