"""The student editions as a student meets them: a real JupyterLab server, from the Binder environment's pins, and
every committed student edition of both editions (book/<chapter>.student.ipynb, book/zh/…) opened in headless
Chromium. Each must show what the site shows: no raw MyST (a role, a directive, a directive's option, a label), no
speaker note, the math typeset by JupyterLab's MathJax. A screenshot of each is saved under _build/screenshots/jupyterlab/
(the test prints the paths). Then one auto-check runs through the kernel on a wrong answer and answers NOT YET with
a hint.

One server and one browser serve every notebook; each notebook's kernel is shut down after its visit.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from importlib.metadata import version
from pathlib import Path

import jupytext
import nbformat
import pytest

from paths import ROOT
from rope_lib.teach.shared.checking import NOT_YET

sys.path.insert(0, str(ROOT / "book" / "_ext"))
import student_notebooks  # noqa: E402

pytestmark = pytest.mark.slow

SCREENSHOTS = ROOT / "_build" / "screenshots" / "jupyterlab"
TOKEN = "rope-student-editions"

RAW_MYST = {
    "a glued value's role": re.compile(r"\{glue"),
    "a {ref} role": re.compile(r"\{ref\}"),
    "an {eq} role": re.compile(r"\{eq\}"),
    "a {cite} role": re.compile(r"\{cite"),
    "a {numref}, {doc} or {prf:…} role": re.compile(r"\{(numref|doc|prf:\w+)\}"),
    "a ::: fence": re.compile(r":::"),
    "a code fence": re.compile(r"```"),
    "a directive's option": re.compile(r"^\s*:(class|label|name|tags|pyobject|language):", re.M),
    "a label (name)=": re.compile(r"^\s*\([\w.:-]+\)=\s*$", re.M),
    "a directive's name": re.compile(r"\{(admonition|exercise|solution-start|solution-end|math|literalinclude|table)\}"),
}
"""What raw MyST looks like in a rendered Markdown cell, code blocks included (JupyterLab turns an indented directive
option into a code block)."""

RAW_TEX = re.compile(r"\$|\\(?:[a-zA-Z]+|\\)")
"""TeX left as text: a dollar sign, or a command such as \\theta, in a rendered Markdown cell outside its code."""

MARKDOWN_TEXT_JS = """(withCode) => Array.from(document.querySelectorAll(
    '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-MarkdownCell .jp-RenderedMarkdown')).map(node => {
  const copy = node.cloneNode(true);
  copy.querySelectorAll('mjx-container, .MathJax' + (withCode ? '' : ', pre, code')).forEach(n => n.remove());
  copy.querySelectorAll('details').forEach(d => d.setAttribute('open', ''));
  document.body.appendChild(copy);
  const text = copy.innerText;
  copy.remove();
  return text;
})"""

STATE_JS = """() => {
  const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
  if (!panel) return null;
  return {
    cells: panel.querySelectorAll('.jp-Cell').length,
    markdown: panel.querySelectorAll('.jp-MarkdownCell').length,
    rendered: panel.querySelectorAll('.jp-MarkdownCell .jp-RenderedMarkdown').length,
    math: panel.querySelectorAll('.jp-RenderedMarkdown mjx-container').length,
    pending: Array.from(panel.querySelectorAll('.jp-MarkdownCell .jp-RenderedMarkdown'))
      .filter(n => /\\$\\$|\\\\\\(|\\$[^$\\s]/.test(n.innerText)).length,
  };
}"""


def binder_pins() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "binder" / "requirements.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line and not line.startswith("--"):
            name, pinned = line.split("==")
            pins[name] = pinned
    return pins


def test_this_environment_has_the_binder_pins():
    """The server below runs from this environment: it must hold binder/requirements.txt's versions (torch's local
    tag +cpu aside: PyTorch's CPU index is out of reach here, and the torch of this machine is the same release)."""
    different = {name: (pinned, version(name)) for name, pinned in binder_pins().items()
                 if version(name).split("+")[0] != pinned.split("+")[0]}
    assert not different, f"binder/requirements.txt pins ≠ this environment (pinned, installed): {different}"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def api(base: str, path: str, method: str = "GET"):
    request = urllib.request.Request(f"{base}{path}", method=method, headers={"Authorization": f"token {TOKEN}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        body = response.read()
    return json.loads(body) if body else None


@pytest.fixture(scope="module")
def jupyterlab(tmp_path_factory):
    """A JupyterLab server on the repository, with fresh settings (a student's defaults): its base address."""
    test_this_environment_has_the_binder_pins()
    home = tmp_path_factory.mktemp("jupyterlab")
    port = free_port()
    environment = {**os.environ, "JUPYTER_CONFIG_DIR": str(home / "config"), "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
                   "JUPYTERLAB_SETTINGS_DIR": str(home / "settings"), "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"),
                   "PYTHONPATH": ""}
    command = [str(Path(sys.executable).parent / "jupyter-lab"), "--no-browser", f"--port={port}", "--ip=127.0.0.1",
               f"--ServerApp.root_dir={ROOT}", f"--IdentityProvider.token={TOKEN}", "--ServerApp.open_browser=False",
               "--LabApp.news_url=", "--LabApp.expose_app_in_browser=True", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
    if os.geteuid() == 0:  # (a container's root; Binder runs as a user)
        command.append("--allow-root")
    log = (home / "server.log").open("w")
    notification = home / "settings" / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
    notification.parent.mkdir(parents=True)
    notification.write_text(json.dumps({"fetchNews": "false"}))  # no "get notified about Jupyter news?" toast: offline
    tracker = home / "settings" / "@jupyterlab" / "notebook-extension" / "tracker.jupyterlab-settings"
    tracker.parent.mkdir(parents=True)
    tracker.write_text(json.dumps({"kernelShutdown": True}))  # each notebook's kernel goes when the next one opens
    server = subprocess.Popen(command, cwd=ROOT, env=environment, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                api(base, "/api/status")
                break
            except OSError:
                if server.poll() is not None:
                    break
                time.sleep(0.5)
        else:
            pytest.fail("JupyterLab did not start: " + (home / "server.log").read_text()[-3000:])
        assert server.poll() is None, (home / "server.log").read_text()[-3000:]
        yield base
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


def student_editions() -> list[Path]:
    return [chapter.with_name(chapter.stem + student_notebooks.SUFFIX)
            for edition in student_notebooks.EDITIONS for chapter in student_notebooks.chapters_of_the_book(edition)]


def speaker_notes(chapter: Path) -> list[str]:
    """A line of each speaker note of the chapter (cells tagged notes), as it would show in the rendered cell."""
    notebook = jupytext.read(chapter, fmt="md:myst")
    notes = [cell.source for cell in notebook.cells if "notes" in cell.metadata.get("tags", [])]
    return [re.sub(r"[*_`$]", "", note.strip().splitlines()[0])[:48] for note in notes if note.strip()]


@pytest.fixture(scope="module")
def browser(chromium):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(**chromium)
        yield browser
        browser.close()


def lab_page(browser, base: str):
    """A browser page with JupyterLab loaded (once: each notebook is then opened in it, as a student opens one)."""
    page = browser.new_page(viewport={"width": 1280, "height": 1400})
    page.goto(f"{base}/lab?token={TOKEN}&reset", wait_until="domcontentloaded", timeout=180_000)
    page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell && window.jupyterapp.commands.hasCommand('docmanager:open')",
                           timeout=180_000)
    return page


OPEN_JS = """async (path) => {
  const app = window.jupyterapp;
  for (const widget of Array.from(app.shell.widgets('main'))) {
    if (widget.context) widget.context.model.dirty = false;  // (JupyterLab fills in the kernel's metadata on opening)
    widget.close();
  }
  await app.commands.execute('docmanager:open', {path, factory: 'Notebook'});
}"""


def open_notebook(page, base: str, path: Path) -> dict:
    """Open the notebook at `path` in the page's JupyterLab, and wait until every cell is there, every Markdown cell
    rendered and MathJax done (the counts stop moving): the page's last state."""
    relative = path.relative_to(ROOT).as_posix()
    settle(base)  # (a notebook closed while its kernel is still starting can hang JupyterLab's close)
    page.evaluate(OPEN_JS, relative)
    page.wait_for_function("(path) => Array.from(window.jupyterapp.shell.widgets('main')).some(w => w.context &&"
                           " w.context.path === path && w.isVisible && !!w.node.querySelector('.jp-RenderedMarkdown'))",
                           arg=relative, timeout=120_000)
    cells = nbformat.read(path, as_version=4).cells
    has_math = any("$" in cell.source for cell in cells if cell.cell_type == "markdown")
    last, steady = None, 0
    for _ in range(480):  # (MathJax loads on the first formula: until then the count of typeset ones stays at 0)
        state = page.evaluate(STATE_JS)
        if (state and state["cells"] == len(cells) and state["rendered"] == state["markdown"] and not state["pending"]
                and (state["math"] > 0 or not has_math)):
            steady = steady + 1 if state == last else 0
            if steady >= 3:
                break
        last = state
        page.wait_for_timeout(250)
    return last


def settle(base: str, seconds: float = 180) -> None:
    """Until no kernel of the server is starting or busy."""
    for _ in range(int(seconds * 2)):
        if all(kernel["execution_state"] == "idle" for kernel in api(base, "/api/kernels")):
            return
        time.sleep(0.5)


def wait_for_an_idle_kernel(base: str, seconds: float = 180) -> None:
    """Until the notebook's kernel has started and is idle (the REST API's view of it)."""
    for _ in range(int(seconds * 2)):
        kernels = api(base, "/api/kernels")
        if kernels and all(kernel["execution_state"] == "idle" for kernel in kernels):
            return
        time.sleep(0.5)
    pytest.fail(f"no idle kernel after {seconds} s: {api(base, '/api/kernels')}")


def shut_down_kernels(base: str) -> None:
    for session in api(base, "/api/sessions"):
        api(base, f"/api/sessions/{session['id']}", method="DELETE")


@pytest.fixture(scope="module")
def lab(jupyterlab, browser):
    """One page with JupyterLab loaded, in which each test opens its notebook: (the page, the server's address)."""
    page = lab_page(browser, jupyterlab)
    yield page, jupyterlab
    page.close()
    shut_down_kernels(jupyterlab)


def in_view(page, element, path: Path, tries: int = 20) -> None:
    """Scroll `element` into the notebook's view and wait until it stays there: the cells above it still change height
    as their outputs and formulas render, and JupyterLab draws the cells of a long notebook as they scroll in, so one
    scroll can leave the screenshot of a blank stretch."""
    height, last = page.viewport_size["height"], None
    for _ in range(tries):
        element.scroll_into_view_if_needed()
        page.wait_for_timeout(500)
        box = element.bounding_box()
        if box and 0 <= box["y"] and box["y"] + box["height"] <= height and box == last:
            return
        last = box
    raise AssertionError(f"{path.name}: {element} does not stay in view (last box {last})")


def visit(lab, path: Path) -> tuple[list[str], list[str], str, dict]:
    """Open a student edition and screenshot it (its top, and its exercises): its Markdown cells' rendered text with
    their code blocks and without, the whole notebook's visible text, the page's state."""
    page, base = lab
    try:
        state = open_notebook(page, base, path)
        with_code, without_code = page.evaluate(MARKDOWN_TEXT_JS, True), page.evaluate(MARKDOWN_TEXT_JS, False)
        visible = page.inner_text(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook")
        shot = SCREENSHOTS / ("zh" if path.parent.name == "zh" else "en") / f"{path.name.removesuffix('.ipynb')}.png"
        shot.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(shot))
        exercises = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-MarkdownCell h2", has_text=re.compile(r"^(Exercises|练习)"))
        if exercises.count():
            in_view(page, exercises.first, path)
            page.screenshot(path=str(shot.with_name(shot.stem + "-exercises.png")))
        print(f"screenshot: {shot}")
    except Exception:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / "failed.png"))
        raise
    return with_code, without_code, visible, state


@pytest.mark.parametrize("path", student_editions(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_the_student_edition_renders_as_the_site(lab, path):
    with_code, without_code, visible, state = visit(lab, path)
    assert state["rendered"] == state["markdown"] > 0, f"{path.name}: not every Markdown cell rendered: {state}"
    raw = {what: sorted({m.group(0) for text in with_code for m in pattern.finditer(text)})
           for what, pattern in RAW_MYST.items()}
    raw = {what: found for what, found in raw.items() if found}
    assert not raw, f"{path.name} shows raw MyST: {raw}"
    tex = sorted({m.group(0) for text in without_code for m in RAW_TEX.finditer(text)})
    assert not tex, f"{path.name} shows TeX as text: {tex}"
    source = (path.parent / path.name.removesuffix(student_notebooks.SUFFIX)).with_suffix(".md")
    if "$" in source.read_text():
        assert state["math"] > 0, f"{path.name}: no formula typeset by MathJax"
    shown = [note for note in speaker_notes(source) if note in visible]
    assert not shown, f"{path.name} shows speaker notes: {shown}"


def test_a_check_answers_not_yet_with_a_hint_in_jupyterlab(lab):
    """The first code cell (the chapter's imports) and the folded one after it (LANG), then a wrong answer typed into the "your turn" cell, then the
    check cell, each run with Shift+Enter as a student runs them: the check prints NOT YET and a hint."""
    path = ROOT / "book" / "complex_numbers.student.ipynb"
    notebook = nbformat.read(path, as_version=4)
    your_turn = next(i for i, cell in enumerate(notebook.cells) if student_notebooks.YOUR_TURN_TAG in cell.metadata.get("tags", []))
    first_code = next(i for i, cell in enumerate(notebook.cells) if cell.cell_type == "code")
    stub = notebook.cells[your_turn].source
    name = re.match(r"def (\w+)\(", stub).group(1)
    wrong = stub.replace(student_notebooks.STUB_BODY["en"], "    return 1  # a wrong answer")
    page, base = lab
    try:
        open_notebook(page, base, path)
        cells = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell")
        wait_for_an_idle_kernel(base)

        def run(index: int) -> None:
            cells.nth(index).scroll_into_view_if_needed()
            cells.nth(index).locator(".jp-InputArea-editor").click()
            page.keyboard.press("Shift+Enter")

        run(first_code)
        page.keyboard.press("Shift+Enter")  # the next cell, the set-up the page hides (LANG), folded: run as it stands
        editor = cells.nth(your_turn).locator(".jp-InputArea-editor .cm-content")
        editor.scroll_into_view_if_needed()
        editor.click()
        page.keyboard.press("Control+A")
        page.keyboard.insert_text(wrong)
        page.keyboard.press("Shift+Enter")
        run(your_turn + 1)
        output = cells.nth(your_turn + 1).locator(".jp-OutputArea-output")
        output.first.wait_for(timeout=240_000)
        page.wait_for_function(
            "(i) => { const c = document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell')[i];"
            " return c && /NOT YET|PASSED/.test(c.innerText); }", arg=your_turn + 1, timeout=60_000)
        text = output.first.inner_text()
    finally:
        shot = SCREENSHOTS / "en" / "check-not-yet.png"
        shot.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(shot))
        print(f"screenshot: {shot}")
    assert text.startswith(NOT_YET.en), f"check_{name} on a wrong answer printed {text!r}"
    hint = text[len(NOT_YET.en):].strip(" :—-\n")
    assert len(hint) > 20 and "Traceback" not in text, f"check_{name} gave no hint: {text!r}"
