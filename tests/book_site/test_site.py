"""The built website in a real browser (Debian's headless Chromium driven by Playwright), offline.

Every page of the site is served on localhost and visited once; the visit records
everything the checks below need. Requests to any other host are refused and
recorded, so a page that needs the network fails here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urldefrag, urljoin, urlparse

import pytest

from paths import ROOT, chinese_pages, pages, pdf_name, teacher_pdf_name
from test_visible_cells import BUILD_LINE

SCREENSHOTS = ROOT / "_build" / "screenshots"
DARK_SCREENSHOTS = SCREENSHOTS / "dark"
PHONE_WIDTH = 390
PAGE_BUDGET = 2 * 1024 * 1024
"""Bytes a page may bring of its own: the HTML and its images (scripts, styles and fonts are shared and cached)."""

pytestmark = pytest.mark.slow


def site_pages(html: Path) -> list[str]:
    """Every HTML page of the site, both editions (the Chinese under zh/), as paths relative to its root (theme
    fragments under _static excluded)."""
    return sorted(p.relative_to(html).as_posix() for p in html.rglob("*.html") if "_static" not in p.relative_to(html).parts)


@pytest.fixture(scope="module")
def site(built_book, serve):
    result, html = built_book
    if result.returncode != 0:
        pytest.fail("the book did not build; see test_book_builds_with_zero_warnings")
    with serve(html) as origin:
        yield html, f"http://{origin}/"


@dataclass
class Visit:
    recording: bool = True  # off once the page's own loading and use are done (axe fetches stylesheets itself)
    console_errors: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)
    foreign_requests: list[str] = field(default_factory=list)
    math_problems: list[str] = field(default_factory=list)
    broken_images: list[str] = field(default_factory=list)
    stuck_figures: list[str] = field(default_factory=list)
    overflowing: list[str] = field(default_factory=list)
    unlabelled_images: list[str] = field(default_factory=list)
    axe_violations: list[dict] = field(default_factory=list)
    own_bytes: int = 0
    total_bytes: int = 0
    interactive_figures: int = 0
    english_interface: list[str] = field(default_factory=list)
    chinese_fonts: list[str] = field(default_factory=list)
    cut_equations: list[str] = field(default_factory=list)
    cut_code: list[str] = field(default_factory=list)
    build_lines: list[str] = field(default_factory=list)
    display_equations: int = 0


MATH_JS = """async () => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) { await MathJax.startup.promise; }
  const sources = document.querySelectorAll('.math, span.math, div.math').length;
  const typeset = document.querySelectorAll('mjx-container').length;
  const clone = document.body.cloneNode(true);
  clone.querySelectorAll('pre, code, script, style, textarea, mjx-container, .highlight').forEach(e => e.remove());
  const text = clone.innerText || clone.textContent;
  const raw = ['\\\\(', '\\\\[', '$$'].filter(s => text.includes(s));
  return {sources, typeset, raw, hasMathJax: !!window.MathJax};
}"""

IMAGES_JS = """() => Array.from(document.images)
  .filter(img => !(img.complete && img.naturalWidth > 0))
  .map(img => img.currentSrc || img.src)"""

OVERFLOW_JS = """() => {
  const width = document.documentElement.clientWidth;
  const offenders = [];
  const scrolls = el => { const o = getComputedStyle(el).overflowX; return o === 'auto' || o === 'scroll' || o === 'hidden'; };
  for (const el of document.body.querySelectorAll('*')) {
    if (!Array.from(el.childNodes).some(n => n.nodeType === 3 && n.textContent.trim())) continue;
    if (!el.checkVisibility({visibilityProperty: true, opacityProperty: false})) continue;
    const rect = el.getBoundingClientRect();
    if (rect.width === 0 || rect.right <= width + 1) continue;
    let clipped = false;
    for (let a = el.parentElement; a; a = a.parentElement) {
      if (scrolls(a) && a.getBoundingClientRect().right <= width + 1) { clipped = true; break; }
    }
    if (!clipped) offenders.push(el.tagName.toLowerCase() + ': ' + el.textContent.trim().slice(0, 60));
  }
  if (document.documentElement.scrollWidth > width + 1) offenders.push('page scrolls sideways: ' + document.documentElement.scrollWidth + 'px');
  return offenders;
}"""


READER_WIDTHS = (1920, 1280)
"""The screens a reader reads at, where every displayed equation and every line of code fits whole; at PHONE_WIDTH an
equation wider than the screen scrolls, and shows that it does."""

OPEN_ALL_JS = """() => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  document.querySelectorAll('.toggle-hidden').forEach(e => e.classList.remove('toggle-hidden'));
  document.querySelectorAll('button.toggle-button').forEach(b => b.classList.add('toggle-button-hidden'));
  document.body.click();  // as a reader's click on a dropdown: the site's script measures the equations it shows
}"""
"""Opens every dropdown (hints, solutions, hidden cells, "How this page is checked"), so their equations are measured."""

EQUATIONS_JS = """(mode) => {
  const CHECKING = ['How this page is checked', '本页如何检验'];
  const bad = [];
  const clips = el => getComputedStyle(el).overflowX !== 'visible';
  const screen = document.documentElement.clientWidth;
  const all = document.querySelectorAll('mjx-container[display="true"]');
  for (const c of all) {
    if (!c.checkVisibility()) continue;
    const box = c.getBoundingClientRect();
    const math = c.querySelector('mjx-assistive-mml');
    const label = ((c.closest('div.math') || {}).id || '') + ': ' + ((math || c).textContent || '').replace(/\\s+/g, ' ').slice(0, 60);
    let cut = box.right > screen + 1 || box.left < -1;
    for (let a = c.parentElement; a && a !== document.body && !cut; a = a.parentElement) {
      if (!clips(a)) continue;
      const r = a.getBoundingClientRect();
      cut = box.right > r.right + 1 || box.left < r.left - 1;
    }
    if (cut) { bad.push('cut off (' + Math.round(box.width) + ' px): ' + label); continue; }
    if (c.scrollWidth <= c.clientWidth + 1) continue;
    const report = c.closest('.admonition') && CHECKING.includes(c.closest('.admonition').querySelector('.admonition-title').textContent.trim());
    if (mode === 'whole' && !report) { bad.push('wider than its column (' + c.scrollWidth + ' > ' + c.clientWidth + ' px): ' + label); continue; }
    const style = getComputedStyle(c);
    const scrolls = style.overflowX === 'auto' || style.overflowX === 'scroll';
    if (!scrolls || style.boxShadow === 'none' || c.scrollLeft > 0) bad.push('scrolls with no sign that it does: ' + label);
  }
  if (document.documentElement.scrollWidth > screen + 1) bad.push('the page scrolls sideways: ' + document.documentElement.scrollWidth + ' px');
  return [all.length, bad];
}"""
"""[the page's displayed equations, the problems]: an equation cut off by a box that hides what overflows it (or by the
screen); in mode 'whole', one wider than its own box; else one that scrolls with no sign that it does (the shaded
edge of book.css). The sympy working in a page's "How this page is checked" block, beneath the page, may scroll at
every width, with the same sign."""

CODE_JS = """() => {
  const bad = [];
  for (const pre of document.querySelectorAll('div.highlight pre')) {
    if (pre.closest('.cell_output') || !pre.checkVisibility()) continue;
    if (pre.scrollWidth <= pre.clientWidth + 1) continue;
    const longest = pre.textContent.split('\\n').reduce((a, b) => (b.length > a.length ? b : a), '');
    bad.push(pre.scrollWidth + ' > ' + pre.clientWidth + ' px: ' + longest.trim().slice(0, 80));
  }
  return bad;
}"""
"""The visible code (cells' input, listings) whose longest line is cut at the right edge of its box."""

BUILD_LINES_JS = """(pattern) => {
  const rule = new RegExp(pattern);
  const found = [];
  for (const pre of document.querySelectorAll('div.highlight pre')) {
    if (pre.closest('.cell_output') || !pre.checkVisibility()) continue;
    for (const line of pre.textContent.split('\\n')) if (rule.test(line)) found.push(line.trim());
  }
  return found;
}"""
"""The build lines of the code a reader sees: cells' input shown and listings, outputs and folded cells left out."""


def measure_as_seen(page, visit: Visit, widths: tuple[int, ...]) -> None:
    """At each of `widths`: first the code a reader sees with every dropdown closed (its build lines and cut lines, at
    the reader's widths), then, every dropdown open, every equation (whole at the reader's widths, scrolling visibly
    on a phone)."""
    for width in widths:
        page.set_viewport_size({"width": width, "height": 900})
        page.wait_for_timeout(100)
        if width == READER_WIDTHS[-1]:
            visit.build_lines = page.evaluate(BUILD_LINES_JS, BUILD_LINE.pattern)
        if width in READER_WIDTHS:
            visit.cut_code += [f"{width} px, {line}" for line in page.evaluate(CODE_JS)]
    page.evaluate(OPEN_ALL_JS)
    for width in widths:
        page.set_viewport_size({"width": width, "height": 900})
        page.wait_for_timeout(100)
        page.evaluate("() => window.dispatchEvent(new Event('resize'))")
        page.wait_for_timeout(100)
        count, bad = page.evaluate(EQUATIONS_JS, "whole" if width in READER_WIDTHS else "scroll")
        visit.display_equations = max(visit.display_equations, count)
        visit.cut_equations += [f"{width} px, {line}" for line in bad]


FAVICON_JS = """() => { const link = document.querySelector('link[rel~="icon"]');
  return link ? link.href : new URL('/favicon.ico', location.href).href; }"""


def favicon_failure(page) -> str | None:
    """The page's icon fetched as the browser asks for it (its linked icon, else /favicon.ico): a browser's
    own icon request reaches no page event, so a missing icon would otherwise go unseen."""
    url = page.evaluate(FAVICON_JS)
    response = page.request.get(url)
    return None if response.ok else f"{response.status} {url} (favicon)"


TAB_LIMIT = 600
"""Tab presses allowed to walk through a page's focusable elements."""

ACTIVE_JS = """() => { const a = document.activeElement; return a && a.classList.contains('rope-control') ? a.id : (a ? a.tagName : null); }"""


def move_every_control(page, visit: Visit) -> None:
    """Reach each kernel-free figure's sliders with Tab alone, press an arrow key, and the picture must change."""
    sliders = page.locator("input.rope-control")
    visit.interactive_figures = page.locator(".rope-interactive").count()
    pending = {sliders.nth(i).get_attribute("id") for i in range(sliders.count())}
    page.evaluate("() => { document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0); }")
    for _ in range(TAB_LIMIT):
        if not pending:
            break
        page.keyboard.press("Tab")
        active = page.evaluate(ACTIVE_JS)
        if active not in pending:
            continue
        pending.discard(active)
        slider = page.locator(f"#{active}")
        figure = page.locator(f".rope-interactive:has(#{active})")
        image, output = figure.locator("img.rope-frame"), page.locator(f'output[for="{active}"]')
        before = (image.get_attribute("src"), output.inner_text())
        at_end = slider.input_value() == slider.get_attribute("max")
        page.keyboard.press("ArrowLeft" if at_end else "ArrowRight")
        after = (image.get_attribute("src"), output.inner_text())
        label = page.locator(f'label[for="{active}"]').inner_text()
        if after[0] == before[0] or after[1] == before[1]:
            visit.stuck_figures.append(f"control {label!r}: picture or value did not change")
        if slider.get_attribute("aria-valuetext") != after[1]:
            visit.stuck_figures.append(f"control {label!r}: aria-valuetext does not announce the shown value")
        if not image.get_attribute("alt"):
            visit.stuck_figures.append(f"control {label!r}: the new frame has no description")
    visit.stuck_figures += [f"control {p!r} cannot be reached with Tab" for p in sorted(pending)]


ENGLISH_INTERFACE = (
    "Show code cell", "Hide code cell", "Click to show", "Click to hide", "Solution to", "Exercise ", "Definition ",
    "Theorem ", "By The", "Contents", "Download", "Print to PDF", "Launch", "Back to top", "Previous", "Next",
)
"""The English words the theme and the extensions write around a page's text (toggles, dropdown hints, titles,
menus, the footer): none may appear on a page of the Chinese edition."""

INTERFACE_TEXT_JS = """() => {
  const clone = document.body.cloneNode(true);
  clone.querySelectorAll('pre, code, script, style, textarea, mjx-container, .math, .highlight, .rope-other-edition').forEach(e => e.remove());
  const tips = Array.from(document.querySelectorAll('[title], [data-bs-title]')).map(e => e.getAttribute('title') || e.getAttribute('data-bs-title'));
  const hints = Array.from(document.querySelectorAll('.toggle-button__tooltip, button.toggle-button')).map(e => e.textContent);
  return [clone.textContent, ...tips, ...hints].join(' ');
}"""

CHINESE_SANS = ("Noto Sans CJK SC", "Source Han Sans SC", "PingFang SC", "Hiragino Sans GB", "Microsoft YaHei", "WenQuanYi Micro Hei")
"""The Chinese faces of the Chinese edition's font stack (book/_static/book.css), sans faces all."""


def chinese_fonts(page) -> list[str]:
    """The faces the browser set the page's first Chinese paragraph and first code cell with Chinese in (its comments
    and strings), from Chrome's DevTools protocol."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument")["root"]["nodeId"]
    fonts = []
    for selector, least in (("article p", 10), ("article div.highlight pre", 2)):
        for node in cdp.send("DOM.querySelectorAll", {"nodeId": root, "selector": selector})["nodeIds"]:
            text = cdp.send("DOM.getOuterHTML", {"nodeId": node})["outerHTML"]
            if sum("\u4e00" <= c <= "\u9fff" for c in text) >= least:
                fonts += [font["familyName"] for font in cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]]
                break
    return fonts


UNLABELLED_JS = """() => Array.from(document.images)
  .filter(img => { const alt = (img.getAttribute('alt') || '').trim();
                   const file = (img.getAttribute('src') || '').split('/').pop();
                   return img.getAttribute('role') !== 'presentation' && (!alt || alt === file || /\\.(png|svg|jpe?g|gif)$/i.test(alt)); })
  .map(img => (img.getAttribute('src') || '').slice(0, 80))"""

AXE_IMPACTS_THAT_FAIL = ("moderate", "serious", "critical")


@pytest.fixture(scope="module")
def visits(site, chromium):
    from playwright.sync_api import sync_playwright

    html, base = site
    origin = urlparse(base).netloc
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    results: dict[str, Visit] = {}
    from axe_playwright_python.sync_playwright import Axe

    axe = Axe()
    DARK_SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(**chromium)
        for name in site_pages(html):
            visit = results.setdefault(name, Visit())
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            page = context.new_page()

            def route(r, visit=visit):
                if urlparse(r.request.url).netloc not in (origin, ""):
                    visit.foreign_requests.append(r.request.url)
                    r.abort()
                else:
                    r.continue_()

            def sized(response, visit=visit):
                if not visit.recording:
                    return
                length = int(response.headers.get("content-length", 0))
                visit.total_bytes += length
                path = urlparse(response.url).path
                if path.endswith(".html") or "/_images/" in path:
                    visit.own_bytes += length
                if response.status >= 400:
                    visit.failed_requests.append(f"{response.status} {response.url}")

            page.route("**/*", route)
            page.on("console", lambda m, visit=visit: visit.recording and m.type == "error" and visit.console_errors.append(m.text))
            page.on("pageerror", lambda e, visit=visit: visit.recording and visit.console_errors.append(str(e)))
            page.on("response", sized)
            page.on(
                "requestfailed",
                lambda r, visit=visit: visit.recording and urlparse(r.url).netloc == origin and visit.failed_requests.append(f"{r.failure} {r.url}"),
            )
            page.goto(base + name, wait_until="networkidle")  # index.html redirects: wait until it settles
            visit.failed_requests += filter(None, [favicon_failure(page)])
            math = page.evaluate(MATH_JS)
            if math["sources"] and (not math["hasMathJax"] or math["typeset"] < math["sources"]):
                visit.math_problems.append(f"{math['typeset']} typeset of {math['sources']} math elements")
            if math["raw"]:
                visit.math_problems.append(f"raw TeX delimiters in the text: {math['raw']}")
            page.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
            page.wait_for_load_state("networkidle")
            visit.broken_images = page.evaluate(IMAGES_JS)
            visit.unlabelled_images = page.evaluate(UNLABELLED_JS)
            move_every_control(page, visit)
            if name.startswith("zh/"):
                shown = page.evaluate(INTERFACE_TEXT_JS)
                visit.english_interface = [phrase for phrase in ENGLISH_INTERFACE if phrase in shown]
                visit.chinese_fonts = chinese_fonts(page)
            page.evaluate("() => { document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0); }")
            page.screenshot(path=str(SCREENSHOTS / (name.replace("/", "__")[:-5] + ".png")), full_page=True)
            page.emulate_media(color_scheme="dark")
            page.wait_for_timeout(200)
            page.screenshot(path=str(DARK_SCREENSHOTS / (name.replace("/", "__")[:-5] + ".png")), full_page=True)
            visit.recording = False
            for scheme in ("dark", "light"):  # axe checks contrast in the colours on screen: scan both themes
                page.emulate_media(color_scheme=scheme)
                page.wait_for_timeout(200)
                visit.axe_violations += [
                    {"id": v["id"], "impact": v["impact"], "help": v["help"], "theme": scheme, "nodes": [n["target"] for n in v["nodes"]][:5]}
                    for v in axe.run(page).response["violations"]
                ]
            phone = context.new_page()
            phone.set_viewport_size({"width": PHONE_WIDTH, "height": 844})
            phone.route("**/*", route)
            phone.goto(base + name, wait_until="networkidle")
            visit.overflowing = phone.evaluate(OVERFLOW_JS)
            phone.evaluate(MATH_JS)
            measure_as_seen(phone, visit, (PHONE_WIDTH,))
            seen = context.new_page()
            seen.route("**/*", route)
            seen.goto(base + name, wait_until="networkidle")
            seen.evaluate(MATH_JS)
            measure_as_seen(seen, visit, READER_WIDTHS)
            context.close()
        browser.close()
    return results


def failures(visits, attribute):
    return {name: getattr(v, attribute) for name, v in visits.items() if getattr(v, attribute)}


def test_the_site_has_every_chapter(site):
    html, _ = site
    pages = site_pages(html)
    assert "book/intro.html" in pages and "book/rope_at_a_glance.html" in pages


def test_no_console_errors(visits):
    assert not failures(visits, "console_errors")


def test_the_chinese_edition_shows_no_english_interface_words(visits):
    assert not failures(visits, "english_interface")


def test_chinese_text_is_set_in_a_sans_face(visits):
    """Each Chinese page's first Chinese paragraph and first code cell with Chinese are set in a face of the stacks of
    book.css, a sans face, never the Kai (楷体) a browser falls back to on a machine with TeX's fonts."""
    pages = {name: v.chinese_fonts for name, v in visits.items() if name.startswith("zh/") and v.chinese_fonts}
    assert len(pages) > 10
    wrong = {name: fonts for name, fonts in pages.items() if not set(fonts) & set(CHINESE_SANS) or any("Kai" in f for f in fonts)}
    assert not wrong


def test_no_failed_requests(visits):
    assert not failures(visits, "failed_requests")


def test_a_missing_favicon_is_a_failed_request(tmp_path, serve, chromium):
    from playwright.sync_api import sync_playwright

    (tmp_path / "page.html").write_text("<!doctype html><title>no icon</title><p>text</p>")
    with serve(tmp_path) as origin, sync_playwright() as p:
        browser = p.chromium.launch(**chromium)
        page = browser.new_page()
        page.goto(f"http://{origin}/page.html")
        assert favicon_failure(page) == f"404 http://{origin}/favicon.ico (favicon)"
        (tmp_path / "favicon.ico").write_bytes((ROOT / "book" / "_static" / "favicon.svg").read_bytes())
        assert favicon_failure(page) is None
        browser.close()


def test_no_request_leaves_the_site(visits):
    assert not failures(visits, "foreign_requests")


def test_math_is_typeset(visits):
    assert not failures(visits, "math_problems")
    assert visits["book/rope_at_a_glance.html"].math_problems == []


def test_every_image_loads(visits):
    assert not failures(visits, "broken_images")


def test_every_interactive_figure_moves(visits):
    assert not failures(visits, "stuck_figures")
    assert sum(v.interactive_figures for v in visits.values()) >= 1


def test_nothing_overflows_a_phone_screen(visits):
    assert not failures(visits, "overflowing")


def test_pages_stay_light(visits):
    heavy = {name: v.own_bytes for name, v in visits.items() if v.own_bytes > PAGE_BUDGET}
    assert not heavy, f"pages over {PAGE_BUDGET} bytes of their own: {heavy}"


def test_screenshot_of_every_page_in_light_and_dark_mode(visits):
    for name in visits:
        for folder in (SCREENSHOTS, DARK_SCREENSHOTS):
            assert (folder / (name.replace("/", "__")[:-5] + ".png")).stat().st_size > 0


def test_every_image_is_described(visits):
    assert not failures(visits, "unlabelled_images")


def test_no_moderate_or_worse_accessibility_violations(visits):
    """axe-core on every page, both themes: no moderate, serious or critical finding (minor ones are printed)."""
    found = {name: [v for v in vs if v["impact"] in AXE_IMPACTS_THAT_FAIL] for name, vs in failures(visits, "axe_violations").items()}
    for rule, text in sorted({(v["id"], v["help"]) for v in sum(failures(visits, "axe_violations").values(), []) if v["impact"] not in AXE_IMPACTS_THAT_FAIL}):
        print(f"axe, minor: {rule} ({text})")
    assert not {name: vs for name, vs in found.items() if vs}


def test_every_displayed_equation_is_whole_on_screen(visits):
    """At 1920 and 1280 px every displayed equation of both editions fits its column; at 390 px one wider than the
    screen scrolls, with a shaded edge that says so, and the page itself never scrolls sideways."""
    assert sum(v.display_equations for v in visits.values()) > 300
    assert not failures(visits, "cut_equations")


def test_no_line_of_code_is_cut_at_the_right_edge(visits):
    assert not failures(visits, "cut_code")


def test_no_visible_code_shows_a_build_line(visits):
    assert not failures(visits, "build_lines")


class _Anchors(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        if tag == "a" and "name" in attrs:
            self.ids.add(attrs["name"])
        if tag == "a" and attrs.get("href"):
            self.links.append(attrs["href"])


def broken_links(html: Path) -> list[str]:
    """Links of the site's pages to a file it lacks, or to an anchor missing from the page they name."""
    parsed = {}
    for name in site_pages(html):
        parser = _Anchors()
        parser.feed((html / name).read_text())
        parsed[name] = parser
    broken = []
    for name, parser in parsed.items():
        for href in parser.links:
            if urlparse(href).scheme in ("http", "https", "mailto", "javascript"):
                continue
            target, fragment = urldefrag(urljoin(name, href))
            target = unquote(target) or name
            if not (html / target).is_file():
                broken.append(f"{name}: {href} (no file {target})")
            elif fragment and target.endswith(".html") and unquote(fragment) not in parsed.get(target, _Anchors()).ids:
                broken.append(f"{name}: {href} (no anchor #{fragment} in {target})")
    return broken


def test_every_internal_link_and_anchor_resolves(site):
    html, _ = site
    broken = broken_links(html)
    assert not broken, "\n".join(broken)


def test_a_link_to_a_missing_file_is_broken(tmp_path):
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "intro.html").write_text(f'<a href="../{pdf_name()}">Download the book as PDF</a><a href="#top">up</a><p id="top">')
    assert broken_links(tmp_path) == [f"book/intro.html: ../{pdf_name()} (no file {pdf_name()})"]
    (tmp_path / pdf_name()).write_bytes(b"%PDF-1.5")
    assert broken_links(tmp_path) == []


def test_every_page_offers_the_book_as_pdf(site):
    """Each page's download menu links the student's and the teacher's PDF, the introduction names both, and the site
    holds them."""
    html, _ = site
    for pdf in (pdf_name(), teacher_pdf_name()):
        assert (html / pdf).read_bytes().startswith(b"%PDF-")
        for page in pages():
            depth = page.count("/")
            assert f'href="{"../" * depth}{pdf}"' in (html / f"{page}.html").read_text(), f"{page}: no link to {pdf}"
    intro = (html / "book" / "intro.html").read_text()
    assert re.search(rf'<a [^>]*href="\.\./{re.escape(pdf_name())}"[^>]*>Download the book as PDF</a>', intro)
    assert re.search(rf'<a [^>]*href="\.\./{re.escape(teacher_pdf_name())}"[^>]*>the teacher.s PDF</a>', intro)


def test_every_page_of_both_editions_names_the_licences(site):
    """The footer of every page says the code is under MIT and the text and figures under CC BY 4.0, in the page's
    language, linking the licence files of the repository _config.yml names."""
    import sys

    import yaml

    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    import book_site

    html, _ = site
    repository = yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]
    english = [f"{page}.html" for page in pages()]
    chinese = [f"zh/{page.removeprefix('book/zh/')}.html" for page in chinese_pages()]
    for names, lang in ((english, "en"), (chinese, "zh")):
        footer = book_site.licence_footer(repository["url"], repository["branch"], lang)
        for name in names:
            assert footer in (html / name).read_text(), f"{name}: no licence footer"


def test_every_chapter_offers_its_executed_notebook(site):
    import json

    from paths import chapters

    html, _ = site
    for chapter in chapters():
        page = (html / f"{chapter}.html").read_text()
        name = chapter.split("/")[-1]
        assert f'href="../_sources/{chapter}.ipynb"' in page, f"{chapter}: no .ipynb in the download menu"
        notebook = json.loads((html / "_sources" / f"{chapter}.ipynb").read_text())
        code = [cell for cell in notebook["cells"] if cell["cell_type"] == "code"]
        assert code and all(cell.get("outputs") is not None for cell in code), name
        assert any(cell["outputs"] for cell in code), f"{chapter}: the notebook carries no outputs"
