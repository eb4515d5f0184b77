"""The files around the book: its licences, how to cite it, the site's footer and the workflow that publishes it.

LICENSE (MIT, for the code) and LICENSE-CC-BY-4.0 (for the text and figures) are what the footer of every page links;
CITATION.cff must be valid Citation File Format, which cffconvert checks against the format's schema; and
.github/workflows/pages.yml must pass actionlint and do what the README says CI does: a push to main builds the whole
book and publishes it, a pull request runs the fast tests and builds the site. Each check is shown failing on a
planted fault, so that a check which can no longer fail is noticed.
"""

import re
import subprocess
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import pytest
import yaml

from paths import ROOT

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
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert citation["cff-version"] == "1.2.0"
    assert citation["title"] == config["title"]
    assert citation["authors"] == [{"name": config["author"]}]
    assert citation["repository-code"] == config["repository"]["url"]
    assert re.search(rf'^version = "{re.escape(str(citation["version"]))}"$', pyproject, re.M)
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
