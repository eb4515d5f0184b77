"""The Chinese edition (book/zh/), built by `make book` into the site's zh/: configured as the English edition but
for its language and paths, with the same pages in the same parts, each page linking the same page of the other
edition both ways, `<html lang="zh-CN">`, a search index that finds Chinese words, figures drawn without a missing
glyph, Chinese decks, student editions and PDF. The browser crawl of tests/book_site/test_site.py visits every page
of both editions."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from paths import CHINESE, ROOT, chinese_chapters, chinese_pages, pages

sys.path.insert(0, str(ROOT / "book" / "_ext"))
import book_site  # noqa: E402
import chinese_lines  # noqa: E402

ZH_ONLY = {"glossary"}
"""Pages of the Chinese edition alone: the glossary of the terms its translation uses."""

CONFIG_DIFFERENCES = {
    "title", "author", "exclude_patterns", "bibtex_bibfiles", "latex.latex_documents.targetname",
    "sphinx.local_extensions.book_site", "sphinx.local_extensions.slides", "sphinx.local_extensions.student_notebooks",
    "sphinx.local_extensions.book_pdf", "sphinx.local_extensions.chinese_interface", "sphinx.local_extensions.listings", "sphinx.config.language", "sphinx.config.rope_other_edition",
    "sphinx.config.html_static_path", "sphinx.config.html_favicon", "sphinx.config.latex_elements.fontpkg",
    "sphinx.config.latex_elements.preamble", "repository.path_to_book", "sphinx.config.proof_title_format",
}
"""The settings in which the Chinese edition's _config.yml may differ from the English: its language, its words (and
the full-width brackets around a proof's title), its paths (one folder deeper) and its PDF's fonts."""

@pytest.mark.slow
def test_the_chinese_interface_speaks_chinese_and_the_english_one_english(tmp_path, build_book):
    """A one-page book with a hidden input, a hidden output, a titled definition and exercise, a solution and inline
    math before a full stop, built in both languages: the Chinese page words its toggles and hints in Chinese, puts
    a solution's title in Chinese order, sets full-width brackets with no space before them, and keeps each formula
    with the punctuation after it; the English page keeps the theme's and the extensions' own words."""
    from test_book import tiny_book

    text = (
        "```{code-cell} ipython3\n:tags: [hide-output]\nprint(2)\n```\n\n"
        ":::{prf:definition} 相对位置目标\n:label: def-goal\n内积只依赖 $m-n$。\n:::\n\n"
        ":::{exercise} 一个小题\n:label: ex-one\n算 $1+1$，写下结果。\n:::\n\n"
        ":::{solution} ex-one\n:class: dropdown\n结果是 $2$。\n:::\n"
    )
    chinese = yaml.safe_load((CHINESE / "_config.yml").read_text())["sphinx"]["config"]
    built = {}
    for language in ("zh_CN", "en"):
        book = tiny_book(tmp_path / language, ":tags: [hide-input]\n\nprint(1)", text, extensions=("chinese_interface",))
        config = yaml.safe_load((book / "_config.yml").read_text())
        config["sphinx"]["config"]["language"] = language
        if language == "zh_CN":
            config["sphinx"]["config"]["proof_title_format"] = chinese["proof_title_format"]
        (book / "_config.yml").write_text(yaml.safe_dump(config, allow_unicode=True))
        result = build_book(book, tmp_path / f"{language}_out")
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
        built[language] = (tmp_path / f"{language}_out" / "_build" / "html" / "page.html").read_text()
    titles = lambda page: re.findall(r'admonition-title">(.*?)</p>', page)  # noqa: E731
    assert titles(built["zh_CN"]) == [
        "显示代码", "隐藏代码", "显示输出", "隐藏输出",
        '<span class="caption-number">定义 1</span>（相对位置目标）',
        '<span class="caption-number">练习 1</span>（一个小题）',
        '<a class="reference internal" href="#ex-one">练习 1（一个小题）</a>的解答',
    ]
    assert "toggleHintShow = '点击显示'" in built["zh_CN"] and "toggleHintHide = '点击隐藏'" in built["zh_CN"]
    assert built["zh_CN"].count('<span class="rope-nobreak">') == 3
    assert '\\(m-n\\)</span>。</span>' in built["zh_CN"] and '\\(1+1\\)</span>，</span>写下结果' in built["zh_CN"]
    english = titles(built["en"])
    assert english[:4] == ["Show code cell source", "Hide code cell source", "Show code cell output", "Hide code cell output"]
    assert "Solution to" in english[-1] and "toggleHintShow = 'Click to show'" in built["en"] and "rope-nobreak" not in built["en"]


GLYPH_WARNINGS = re.compile(r"Glyph \d+ .* missing from font|does not have a glyph", re.I)
"""What matplotlib says when it draws a character no font of the figure has: a UserWarning (ordinary text) or a
log message (mathtext), both on the cell's stderr."""


def differing_settings(a, b, prefix: str = "") -> set[str]:
    """Dotted paths of the settings in which two parsed configs differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        found = set()
        for key in set(a) | set(b):
            found |= differing_settings(a.get(key), b.get(key), f"{prefix}{key}.") if key in a and key in b else {f"{prefix}{key}"}
        return found
    return set() if a == b else {prefix.rstrip(".")}


def name(page: str) -> str:
    return page.rsplit("/", 1)[-1]


def test_the_chinese_config_is_the_english_one_but_for_language_paths_and_fonts():
    english = yaml.safe_load((ROOT / "_config.yml").read_text())
    chinese = yaml.safe_load((CHINESE / "_config.yml").read_text())
    english["sphinx"]["config"].pop("rope_other_edition")
    chinese["sphinx"]["config"].pop("rope_other_edition")
    assert differing_settings(english, chinese) <= CONFIG_DIFFERENCES, differing_settings(english, chinese) - CONFIG_DIFFERENCES
    assert chinese["sphinx"]["config"]["language"] == "zh_CN"


def test_a_changed_setting_is_found():
    english = yaml.safe_load((ROOT / "_config.yml").read_text())
    changed = yaml.safe_load((ROOT / "_config.yml").read_text())
    changed["execute"]["timeout"] = 1
    assert differing_settings(english, changed) == {"execute.timeout"}


def test_the_chinese_toc_has_the_english_pages_in_the_same_parts():
    english = yaml.safe_load((ROOT / "_toc.yml").read_text())
    chinese = yaml.safe_load((CHINESE / "_toc.yml").read_text())
    assert name(english["root"]) == chinese["root"]
    assert len(english["parts"]) == len(chinese["parts"])
    for en, zh in zip(english["parts"], chinese["parts"]):
        assert bool(en.get("numbered")) == bool(zh.get("numbered"))
        assert [name(e["file"]) for e in en["chapters"]] == [e["file"] for e in zh["chapters"] if e["file"] not in ZH_ONLY]
        assert re.search(r"[\u4e00-\u9fff]", zh["caption"]), zh["caption"]


def test_every_chinese_page_is_written_in_chinese():
    """Each page's title and most of its prose are Chinese: more Chinese characters than English words outside code,
    math and roles."""
    for page in chinese_pages():
        if name(page) in ZH_ONLY:
            continue  # the glossary pairs each English term with its Chinese
        source = (ROOT / f"{page}.md").read_text()
        title = next(line for line in source.splitlines() if line.startswith("# "))
        assert re.search(r"[\u4e00-\u9fff]", title), f"{page}: title {title!r}"
        prose = re.sub(r"```.*?```|\$\$.*?\$\$|\$[^$\n]*\$|`[^`]*`|\{[\w:-]+\}`[^`]*`|<[^>]*>|\(.*?\)=", "", source, flags=re.S)
        han = len(re.findall(r"[\u4e00-\u9fff]", prose))
        english_words = len(re.findall(r"\b[a-zA-Z]{3,}\b", prose))
        assert han > 2 * english_words, f"{page}: {han} Chinese characters against {english_words} English words"


@pytest.fixture(scope="module")
def site(built_book):
    result, html = built_book
    if result.returncode != 0:
        pytest.fail("the book did not build; see test_book_builds_with_zero_warnings")
    return html


@pytest.mark.slow
def test_the_chinese_edition_builds_with_zero_warnings(site):
    for page in chinese_pages():
        assert "Traceback" not in (site / "zh" / f"{name(page)}.html").read_text(), page


@pytest.mark.slow
def test_each_page_links_the_same_page_of_the_other_edition_both_ways(site):
    for page in pages():
        english = (site / f"{page}.html").read_text()
        assert re.search(rf'<p class="rope-other-edition"><a href="\.\./zh/{name(page)}\.html" hreflang="zh-CN"', english), page
        assert (site / "zh" / f"{name(page)}.html").is_file(), page
        chinese = (site / "zh" / f"{name(page)}.html").read_text()
        assert re.search(rf'<p class="rope-other-edition"><a href="\.\./{page}\.html" hreflang="en"', chinese), page
        assert f'<link rel="alternate" hreflang="en" href="../{page}.html">' in chinese
    for page in ZH_ONLY:
        assert 'class="rope-other-edition"' not in (site / "zh" / f"{page}.html").read_text()


@pytest.mark.slow
def test_each_edition_names_its_language(site):
    for page in pages():
        assert re.search(r'<html [^>]*lang="en"', (site / f"{page}.html").read_text()), page
    for page in chinese_pages():
        assert re.search(r'<html [^>]*lang="zh-CN"', (site / "zh" / f"{name(page)}.html").read_text()), page


def search_terms(site: Path) -> dict:
    """The terms of the Chinese edition's search index (Sphinx's searchindex.js)."""
    index = (site / "zh" / "searchindex.js").read_text()
    return json.loads(index[index.index("(") + 1 : index.rindex(")")])["terms"]


@pytest.mark.slow
def test_the_chinese_search_index_holds_chinese_words(site):
    """Split into words (jieba, taught the glossary's terms), so that a word inside a sentence is found: 旋转 (rotation),
    注意力 (attention), 插值 (interpolation), 位置 (position), 外推 (extrapolation) and 旋转位置编码 (RoPE) are terms of
    their own, each on several pages."""
    terms = search_terms(site)
    for word in ("旋转", "注意力", "插值", "位置", "外推", "旋转位置编码"):
        found = terms.get(word)
        assert found is not None, f"{word} is not a term of the search index"
        assert isinstance(found, list) and len(found) >= 2, (word, found)


@pytest.mark.slow
def test_a_search_in_chinese_finds_pages(site, serve, chromium):
    from playwright.sync_api import sync_playwright

    with serve(site) as origin, sync_playwright() as p:
        browser = p.chromium.launch(**chromium)
        page = browser.new_page()
        page.goto(f"http://{origin}/zh/search.html?q=旋转", wait_until="networkidle")
        page.wait_for_selector("#search-results ul.search li", timeout=20000)
        found = page.locator("#search-results ul.search li").count()
        browser.close()
    assert found >= 3, f"a search for 旋转 found {found} pages"


def test_the_glossary_teaches_the_search_its_terms():
    terms = book_site.glossary_terms(CHINESE / "glossary.md")
    assert {"外推", "旋转位置编码", "查询", "键", "值", "位置插值"} <= set(terms)
    assert "中文" not in terms and not [t for t in terms if " " in t or "（" in t]


def test_a_line_break_between_chinese_characters_is_dropped():
    assert chinese_lines.join_chinese_lines("确实成立。\n每个带\n编号的公式") == "确实成立。每个带编号的公式"
    assert chinese_lines.join_chinese_lines("像 RoFormer 论文\nRoPE 的\n $m$") == "像 RoFormer 论文\nRoPE 的\n $m$"


def test_a_line_break_next_to_chinese_punctuation_is_dropped():
    """Full-width punctuation carries its own space: a break after it, or before it, would show a second one."""
    assert chinese_lines.join_chinese_lines("在网格上搜索。\nMen 等人") == "在网格上搜索。Men 等人"
    assert chinese_lines.join_chinese_lines("个字节，\nbf16 下是") == "个字节，bf16 下是"
    assert chinese_lines.join_chinese_lines("（底数）\n$L$ 以内") == "（底数）$L$ 以内"
    assert chinese_lines.join_chinese_lines("x\n，所以") == "x，所以"
    assert chinese_lines.join_chinese_lines("也在“dog bites man”与\n“man bites dog”的对比中") == "也在“dog bites man”与“man bites dog”的对比中"
    assert chinese_lines.join_chinese_lines("。\n\n下一段") == "。\n\n下一段"  # (a paragraph break is not a line break)


def test_markdown_joins_a_paragraphs_lines_and_keeps_its_blocks():
    """The student editions' and the decks' Chinese Markdown: a browser renders it too, a break as a gap."""
    join = chinese_lines.join_markdown_lines
    assert join("第一行的\n第二行，\nRoPE 的\nRoPE") == "第一行的第二行，RoPE 的\nRoPE"
    assert join("> 引文，\n> 接着\n\n- 一项的\n  续行；\n- 二项") == "> 引文，接着\n\n- 一项的续行；\n- 二项"
    kept = ["# 标题\n正文", "```\n# 中文注释\n中文\n```", "$$\n\\text{甲}\n\\text{乙}\n$$", "<summary>提示</summary>\n正文",
            "| 甲 |\n| 乙 |", "甲。\n\n乙", "1. 甲；\n2. 乙", "> 甲。\n乙"]
    assert [join(text) for text in kept] == kept


@pytest.mark.slow
def test_chinese_paragraphs_hold_no_line_break_between_characters(site):
    """A browser shows such a break as a space, which Chinese text has none of."""
    for page in chinese_pages():
        html = (site / "zh" / f"{name(page)}.html").read_text()
        paragraphs = re.findall(r"<p>(.*?)</p>", html, re.S)
        broken = [p for p in paragraphs if re.search(r"[\u4e00-\u9fff。，；：]\n[\u4e00-\u9fff]|[。，；：、）“”]\n\S|\S\n[。，；：、（“”]",
                                                        re.sub(r"<[^>]+>", "", p))]
        assert not broken, f"{page}: {broken[:2]}"


def executed_notebooks(site: Path) -> list[Path]:
    """Every chapter notebook the two builds executed (the site's copies under _sources)."""
    return sorted((site / "_sources" / "book").glob("*.ipynb")) + sorted((site / "zh" / "_sources").glob("*.ipynb"))


def glyph_warnings(notebook: dict) -> list[str]:
    return [line for cell in notebook["cells"] for output in cell.get("outputs", [])
            if output.get("output_type") == "stream" and output.get("name") == "stderr"
            for line in "".join(output["text"]).splitlines() if GLYPH_WARNINGS.search(line)]


@pytest.mark.slow
def test_no_figure_of_either_edition_misses_a_glyph(site):
    notebooks = [n for n in executed_notebooks(site) if not n.name.endswith(".student.ipynb")]
    assert len(notebooks) >= 2 * 13
    found = {n.relative_to(site).as_posix(): w for n in notebooks if (w := glyph_warnings(json.loads(n.read_text())))}
    assert not found, found


def test_a_missing_glyph_in_a_cell_is_found():
    """A Chinese label in mathtext, drawn for real: the warning it prints is what the test above looks for."""
    import io
    import logging
    import warnings

    from rope_lib.teach.shared.figure_style import new_figure

    figure = new_figure("一幅图，标签里有中文和数学公式混在一起")
    figure.add_subplot().set_xlabel(r"距离 $m-n$")
    said = io.StringIO()
    handler = logging.StreamHandler(said)
    logging.getLogger("matplotlib").addHandler(handler)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            figure.to_png()
    finally:
        logging.getLogger("matplotlib").removeHandler(handler)
    printed = said.getvalue() + "".join(str(w.message) + "\n" for w in caught)
    notebook = {"cells": [{"outputs": [{"output_type": "stream", "name": "stderr", "text": printed}]}]}
    assert glyph_warnings(notebook)


@pytest.mark.slow
def test_the_chinese_decks_are_chinese(site):
    decks = sorted((site / "zh" / "_static" / "slides").glob("*.slides.html"))
    english = sorted((site / "_static" / "slides").glob("*.slides.html"))
    assert [d.name for d in decks] == [d.name for d in english] and decks
    for deck in decks:
        html = deck.read_text()
        assert '<html lang="zh-CN">' in html, deck.name
        visible = re.sub(r"<script.*?</script>|<style.*?</style>|<[^>]+>", "", html, flags=re.S)
        assert len(re.findall(r"[\u4e00-\u9fff]", visible)) > 200, deck.name


@pytest.mark.slow
def test_the_chinese_site_offers_its_student_editions_and_pdf(site):
    for pdf in ("rope-from-first-principles-zh.pdf", "rope-from-first-principles-zh-teacher.pdf"):
        assert (site / "zh" / pdf).read_bytes().startswith(b"%PDF-")
        for page in chinese_pages():
            html = (site / "zh" / f"{name(page)}.html").read_text()
            assert f'href="{pdf}"' in html, f"{page}: no link to {pdf}"
    students = sorted((site / "zh" / "_sources").glob("*.student.ipynb"))
    assert len(students) == len(list((site / "_sources" / "book").glob("*.student.ipynb"))) > 0
    for chapter in chinese_chapters():
        page = (site / "zh" / f"{name(chapter)}.html").read_text()
        student = f"{name(chapter)}.student.ipynb"
        assert f'href="_sources/{student}"' in page, f"{chapter}: no download link to {student}"
        assert f"urlpath=lab/tree/book/zh/{student}" in page, f"{chapter}: the Binder button should open book/zh/{student}"


@pytest.fixture(scope="module")
def pdf_zh(built_pdf_zh) -> Path:
    result, folder = built_pdf_zh
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-6000:]
    return folder


@pytest.mark.slow
def test_the_chinese_pdf_sets_every_character(pdf_zh):
    log = (pdf_zh / "rope-from-first-principles-zh.log").read_text(errors="replace")
    assert "Output written on" in log
    assert not [line for line in log.splitlines() if line.startswith("!")]
    assert not [line for line in log.splitlines() if "Missing character" in line]
    assert "There were undefined references" not in log
    text = subprocess.run(["pdftotext", "-layout", str(pdf_zh / "rope-from-first-principles-zh.pdf"), "-"],
                          capture_output=True, text=True, check=True).stdout
    assert "旋转位置编码" in text and "术语表" in text and "??" not in text
    teacher = subprocess.run(["pdftotext", "-layout", str(pdf_zh / "rope-from-first-principles-zh-teacher.pdf"), "-"],
                             capture_output=True, text=True, check=True).stdout
    assert "第 1 讲" not in text and "第 1 讲" in teacher, "the guide's lectures print in the teacher's PDF alone"
    assert "??" not in teacher
