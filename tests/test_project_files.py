"""The files around the book: its licences, how to cite it, the site's footer and the workflow that publishes it.

LICENSE (MIT, for the code) and LICENSE-CC-BY-4.0 (for the text and figures) are what the footer of every page links;
CITATION.cff must be valid Citation File Format, which cffconvert checks against the format's schema; and
.github/workflows/pages.yml must pass actionlint and do what the README says CI does: a push to main builds the whole
book and publishes it, a pull request runs the fast tests and builds the site. CONTRIBUTING.md opens with the map of
the project: its layout names every file of rope_lib/ and book/_ext/, names no path that does not exist, and gives
each chapter its row with the files the chapter lists. Each check is shown failing on a planted fault, so that a check
which can no longer fail is noticed.
"""

import re
import subprocess
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import pytest
import yaml

import rope_lib

from paths import ROOT, chapters

sys.path.insert(0, str(ROOT / "book" / "_ext"))
import book_site  # noqa: E402

WORKFLOW = ROOT / ".github" / "workflows" / "pages.yml"
CC_BY = "https://creativecommons.org/licenses/by/4.0/"

def tool(name: str) -> Path:
    """A command installed into the environment that runs the tests, next to its Python."""
    return Path(sys.executable).with_name(name)


def english_config() -> dict:
    return yaml.safe_load((ROOT / "_config.yml").read_text())


# --- the licences ---------------------------------------------------------------------------------------------------


def test_license_is_the_mit_licence_and_points_to_the_cc_by_text():
    text = (ROOT / "LICENSE").read_text()
    assert "MIT License" in text
    assert "Copyright (c) 2026 The RoPE, from first principles authors" in text
    assert "Permission is hereby granted, free of charge, to any person obtaining a copy" in text
    assert 'THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND' in text
    preamble = text.split("MIT License")[0]
    assert "LICENSE-CC-BY-4.0" in preamble and "CC BY 4.0" in preamble
    for place in ("rope_lib/", "benchmarks/", "scripts/", "tests/", "book/_ext/", "book/zh/"):
        assert place in preamble, place


def test_license_cc_by_4_0_is_the_legal_code():
    text = (ROOT / "LICENSE-CC-BY-4.0").read_text()
    assert text.startswith("Creative Commons Attribution 4.0 International")
    assert "Creative Commons Attribution 4.0 International Public License" in text
    headings = re.findall(r"^Section (\d) – ", text, re.M)
    assert headings == [str(n) for n in range(1, 9)], headings
    assert "Licensed Material" in text and "Sui Generis Database Rights" in text


# --- the footer -----------------------------------------------------------------------------------------------------


def footer_problems(footer: str, repository: str, branch: str) -> list[str]:
    """What is wrong with a footer: it must name both licences, link the Creative Commons deed, and link LICENSE and
    LICENSE-CC-BY-4.0 in the repository that `repository: url` names, on its branch."""
    links = re.findall(r'href="([^"]*)"', footer)
    problems = [f"no {words}" for words in ("MIT", "CC BY 4.0") if words not in footer]
    problems += [] if CC_BY in links else [f"no link to {CC_BY}"]
    prefix = f"{repository.rstrip('/')}/blob/{branch}/"
    for name in ("LICENSE", "LICENSE-CC-BY-4.0"):
        if prefix + name not in links:
            problems.append(f"no link to {prefix + name}")
    for link in links:
        if link != CC_BY and not link.startswith(prefix):
            problems.append(f"{link} is not in the repository {repository} (repository: url)")
        elif link.startswith(prefix) and not (ROOT / link[len(prefix):]).is_file():
            problems.append(f"{link}: no such file here")
    return problems


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_footer_names_the_licences_and_links_them_in_this_repository(lang):
    repository = english_config()["repository"]
    footer = book_site.licence_footer(repository["url"], repository["branch"], lang)
    assert footer_problems(footer, repository["url"], repository["branch"]) == []


def test_the_footers_are_in_their_editions_languages():
    repository = english_config()["repository"]
    assert "Code: " in book_site.licence_footer(repository["url"], "main", "en")
    chinese = book_site.licence_footer(repository["url"], "main", "zh")
    assert "代码：" in chinese and "许可证" in chinese and "文字与图：" in chinese


def test_a_footer_that_leaves_the_repository_is_caught():
    repository = english_config()["repository"]
    fork = book_site.licence_footer("https://github.com/someone-else/rope-book", "main", "en")
    problems = footer_problems(fork, repository["url"], repository["branch"])
    assert any("is not in the repository" in problem for problem in problems), problems
    assert len(footer_problems("<p>Code: MIT.</p>", repository["url"], "main")) == 4


# --- CITATION.cff ---------------------------------------------------------------------------------------------------


def validate_citation(path: Path) -> subprocess.CompletedProcess:
    """cffconvert's schema check. The Makefile installs cffconvert (CFFCONVERT there) for `make test`."""
    try:
        version("cffconvert")
    except PackageNotFoundError:
        pytest.fail("cffconvert is not installed: `make test` installs it (the Makefile's CFFCONVERT)")
    return subprocess.run(
        [str(tool("cffconvert")), "--validate", "-i", str(path)], capture_output=True, text=True, timeout=120
    )


def test_the_citation_file_is_valid_citation_file_format():
    result = validate_citation(ROOT / "CITATION.cff")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "valid according to schema version 1.2.0" in result.stdout


@pytest.mark.slow
@pytest.mark.parametrize("field", ["authors", "message", "title"])
def test_a_citation_without_a_required_field_is_invalid(tmp_path, field):
    text = (ROOT / "CITATION.cff").read_text()
    cut = re.sub(rf"^{field}:.*\n(?:[ -].*\n)*", "", text, flags=re.M)
    assert cut != text and f"\n{field}:" not in cut
    (tmp_path / "CITATION.cff").write_text(cut)
    result = validate_citation(tmp_path / "CITATION.cff")
    assert result.returncode != 0
    assert f"'{field}' is a required property" in result.stdout + result.stderr


def test_the_citation_agrees_with_the_project():
    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    config = english_config()
    assert citation["cff-version"] == "1.2.0"
    assert citation["title"] == config["title"]
    assert citation["authors"] == [{"name": config["author"]}]
    assert citation["repository-code"] == config["repository"]["url"]
    assert str(citation["version"]) == rope_lib.__version__
    assert citation["license"] == ["MIT", "CC-BY-4.0"]


# --- the Pages workflow ---------------------------------------------------------------------------------------------


def actionlint(path: Path) -> subprocess.CompletedProcess:
    assert tool("actionlint").is_file(), "actionlint is not installed: pip install -e '.[test]'"
    return subprocess.run(
        [str(tool("actionlint")), "-no-color", "-oneline", str(path)],
        capture_output=True, text=True, timeout=120, cwd=path.parent,
    )


def workflow() -> dict:
    return yaml.safe_load(WORKFLOW.read_text())


def triggers(parsed: dict) -> dict:
    """The `on:` section, which YAML 1.1 (PyYAML) reads as the key True."""
    return parsed.get("on", parsed.get(True))


def runs(job: dict) -> list[str]:
    return [step["run"].strip() for step in job["steps"] if "run" in step]


def step_using(job: dict, action: str) -> dict:
    found = [step for step in job["steps"] if step.get("uses", "").split("@")[0] == action]
    assert len(found) == 1, f"{action}: {len(found)} steps"
    return found[0]


def test_the_workflow_passes_actionlint():
    result = actionlint(WORKFLOW)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


PLANTED = {
    "an unknown key": ("    runs-on: ubuntu-latest\n", "    runs-on: ubuntu-latest\n    run-on: linux\n", '"run-on"'),
    "an unknown context": ("run: make test-fast", "run: make ${{ github.nonexistent_thing }}", '"nonexistent_thing"'),
    "a runs-on of the wrong type": ("    runs-on: ubuntu-latest\n", "    runs-on: {os: ubuntu-latest}\n", '"runs-on"'),
    "a job needing no such job": ("    needs: build\n", "    needs: compile\n", '"compile"'),
}
"""Faults to plant in a copy of the workflow: the text replaced, its replacement, and what actionlint's report names."""


@pytest.mark.parametrize("fault", PLANTED)
def test_actionlint_finds_a_planted_error(tmp_path, fault):
    old, new, named = PLANTED[fault]
    text = WORKFLOW.read_text()
    assert old in text
    planted = tmp_path / "pages.yml"
    planted.write_text(text.replace(old, new, 1))
    result = actionlint(planted)
    assert result.returncode != 0
    report = result.stdout.splitlines()
    assert len(report) == 1 and report[0].startswith("pages.yml:") and named in report[0], result.stdout


def test_a_push_to_main_builds_the_book_and_publishes_it():
    parsed = workflow()
    assert triggers(parsed)["push"]["branches"] == ["main"]
    build, deploy = parsed["jobs"]["build"], parsed["jobs"]["deploy"]
    for job in (build, deploy):
        assert job["if"] == "github.event_name != 'pull_request'"
    assert "make book" in runs(build)
    assert step_using(build, "actions/setup-python")["with"]["python-version"] == "3.11"
    assert "node-version" in step_using(build, "actions/setup-node")["with"]
    cache = step_using(build, "actions/cache")["with"]
    assert "_build/.jupyter_cache" in cache["path"].split()
    for inputs in ("rope_lib/**", "book/**", "requirements.txt"):
        assert f"'{inputs}'" in cache["key"], inputs
    assert cache["key"].startswith(cache["restore-keys"].strip())
    assert step_using(build, "actions/upload-pages-artifact")["with"]["path"] == "_build/html"
    assert deploy["needs"] == "build"
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert deploy["environment"] == {"name": "github-pages", "url": "${{ steps.deployment.outputs.page_url }}"}
    assert step_using(deploy, "actions/deploy-pages")["id"] == "deployment"
    assert deploy["concurrency"]["group"] == "pages"


def test_a_pull_request_runs_the_fast_tests_and_builds_the_site_without_publishing():
    parsed = workflow()
    assert "pull_request" in triggers(parsed)
    job = parsed["jobs"]["pull-request"]
    assert job["if"] == "github.event_name == 'pull_request'"
    assert runs(job)[-2:] == ["make test-fast", "make html"]
    assert not [step for step in job["steps"] if "pages" in step.get("uses", "")]
    assert "permissions" not in job and parsed["permissions"] == {"contents": "read"}


def test_every_action_is_pinned_to_a_major_version():
    uses = [step["uses"] for job in workflow()["jobs"].values() for step in job["steps"] if "uses" in step]
    assert uses
    for action in uses:
        assert re.fullmatch(r"actions/[\w-]+(/[\w-]+)?@v\d+", action), action


# --- CONTRIBUTING's layout ------------------------------------------------------------------------------------------

MAPPED = ("rope_lib", "book/_ext")
"""The folders every file of which CONTRIBUTING's layout names."""
LISTED_WHOLE = ("book/_ext/slides_template/",)
"""Folders the layout may name as a whole: the decks' template assets."""
NOT_SOURCES = {"__pycache__", ".ipynb_checkpoints"}


def contributing_layout(text: str) -> str:
    """The "## Layout" section of CONTRIBUTING.md: from its heading to the next section's."""
    sections = re.split(r"^(?=## )", text, flags=re.M)
    found = [section for section in sections if section.startswith("## Layout\n")]
    assert len(found) == 1, f"{len(found)} Layout sections"
    return found[0]


def mapped_files() -> list[str]:
    """Every source file of rope_lib/ and book/_ext/, relative to the root: no caches, no compiled bytecode, no
    py.typed marker, no egg-info."""
    files = []
    for folder in MAPPED:
        for path in sorted((ROOT / folder).rglob("*")):
            relative = path.relative_to(ROOT)
            if not path.is_file() or NOT_SOURCES & set(relative.parts) or path.suffix == ".pyc":
                continue
            if path.name == "py.typed" or any(part.endswith(".egg-info") for part in relative.parts):
                continue
            files.append(relative.as_posix())
    return files


def named_paths(section: str) -> set[str]:
    """The paths a layout section names: every `code` span with a slash in it, and every `code` span in the first
    cell of a table row (the root's files: `README.md`, `Makefile`)."""
    spans = set(re.findall(r"`([^`\s]+/[^`\s]*)`", section))
    for row in re.findall(r"^\|([^|\n]*)\|", section, flags=re.M):
        spans |= set(re.findall(r"`([^`\s]+)`", row))
    return spans


def rooms(section: str) -> set[str]:
    """The paths of the layout's first table ("| path | holds |"): the `code` spans of its rows' first cells."""
    table = re.search(r"^\| path \| holds \|\n((?:\|.*\n)*)", section, flags=re.M)
    assert table, "no | path | holds | table"
    return {span for row in table.group(1).splitlines() for span in re.findall(r"`([^`\s]+)`", row.split("|")[1])}


def layout_problems(section: str, files: list[str]) -> list[str]:
    """What is wrong with a layout section: a file of `files` without its row in the table of rooms and files (a
    folder of LISTED_WHOLE there stands for its files), a path it names that does not exist, a folder named without
    its slash."""
    listed = rooms(section)
    problems = []
    for file in files:
        if file not in listed and not any(file.startswith(folder) and folder in listed for folder in LISTED_WHOLE):
            problems.append(f"{file} is not in CONTRIBUTING's layout")
    for path in sorted(named_paths(section)):
        if not (ROOT / path).exists():
            problems.append(f"{path}: no such path")
        elif path.endswith("/") != (ROOT / path).is_dir():
            problems.append(f"{path}: a folder ends with /, a file does not")
    return problems


def chapter_rows(section: str) -> dict[str, str]:
    """The rows of the layout's chapter table, by the chapter (book/<name>) their first cell names."""
    rows = {}
    for row in re.findall(r"^\|.*\|$", section, flags=re.M):
        first = row.split("|")[1]
        pages = re.findall(r"`(book/[\w]+)\.md`", first)
        if pages:
            rows[pages[0]] = row
    return rows


def contributing() -> str:
    return (ROOT / "CONTRIBUTING.md").read_text()


def test_contributing_opens_with_the_layout():
    headings = re.findall(r"^## (.+)$", contributing(), flags=re.M)
    assert headings[0] == "Layout" and headings.count("Layout") == 1, headings


def test_the_layout_names_every_file_of_the_library_and_the_extensions_and_only_paths_that_exist():
    files = mapped_files()
    assert "rope_lib/rope.py" in files and "book/_ext/slides.py" in files and "rope_lib/kernels/cpu_kernel.cpp" in files
    assert layout_problems(contributing_layout(contributing()), files) == []


def planted_problems(planted: str, files: list[str] | None = None) -> list[str]:
    """The problems a planted fault adds to those of the layout as it is (none, when the layout is whole)."""
    files = mapped_files() if files is None else files
    before = layout_problems(contributing_layout(contributing()), mapped_files())
    return [problem for problem in layout_problems(planted, files) if problem not in before]


def test_a_file_missing_from_the_layout_is_caught():
    section = contributing_layout(contributing())
    row = next(line for line in section.splitlines() if line.startswith("| `rope_lib/hf.py` |"))
    assert planted_problems(section.replace(row + "\n", "")) == ["rope_lib/hf.py is not in CONTRIBUTING's layout"]
    assert planted_problems(section, mapped_files() + ["rope_lib/new_module.py"]) == [
        "rope_lib/new_module.py is not in CONTRIBUTING's layout"
    ]
    whole = "| `book/_ext/slides_template/` |"
    assert whole in section
    assert planted_problems(section.replace(whole, "| the decks' template |")) == [
        f"{file} is not in CONTRIBUTING's layout" for file in mapped_files() if file.startswith(LISTED_WHOLE)
    ]


def test_a_path_that_does_not_exist_is_caught():
    section = contributing_layout(contributing())
    planted = section + "\n| `rope_lib/gone.py` | a module since removed |\n| `Gone.md` | a page |\n"
    assert planted_problems(planted) == ["Gone.md: no such path", "rope_lib/gone.py: no such path"]
    assert planted_problems(section + "\nThe helpers, `rope_lib/teach`, are imported by name.\n") == [
        "rope_lib/teach: a folder ends with /, a file does not"
    ]


def test_each_chapter_has_its_row_with_both_editions_and_the_files_it_lists():
    rows = chapter_rows(contributing_layout(contributing()))
    for chapter in chapters():
        assert chapter in rows, f"{chapter}: no row in CONTRIBUTING's chapter table"
        row = rows[chapter]
        chinese = chapter.replace("book/", "book/zh/", 1)
        assert f"`{chinese}.md`" in row, chinese
        for page in (ROOT / f"{chapter}.md", ROOT / f"{chinese}.md"):
            for listed in re.findall(r"\{literalinclude\}\s+(\S+)", page.read_text()):
                path = (page.parent / listed).resolve().relative_to(ROOT).as_posix()
                assert f"`{path}`" in row, f"{chapter}: lists {path}, which its row does not name"
