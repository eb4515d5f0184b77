"""The README a newcomer reads first: short, its chapter list is _toc.yml's, its links are the ones _config.yml
sets, the make targets it names exist, and its code runs."""

import contextlib
import io
import re
import subprocess

import torch
import yaml

from paths import ROOT, chapters

README = (ROOT / "README.md").read_text()
REPOSITORY = yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]["url"]


def test_the_readme_is_short():
    assert len(README.splitlines()) <= 120


def test_the_chapter_list_is_the_table_of_contents():
    titles = []
    for chapter in chapters():
        heading = next(line for line in (ROOT / f"{chapter}.md").read_text().splitlines() if line.startswith("# "))
        titles.append(heading[2:].strip())
    listed = re.findall(r"^(?:\d+\. |Appendix: \d+\. )(.+?)(?::|\. Then)", README, flags=re.M)
    assert [t.rstrip(".") for t in listed] == [t.rstrip(".") for t in titles]


def test_the_site_link_is_the_repository_s_pages_address():
    owner, name = re.fullmatch(r"https://github\.com/([^/]+)/([^/]+?)/?", REPOSITORY).groups()
    assert f"<https://{owner}.github.io/{name}/>" in README


def test_every_make_target_named_is_listed_by_make_help():
    listed = set(re.findall(r"^(\S+)", subprocess.run(["make", "-s", "help"], cwd=ROOT, capture_output=True, text=True,
                                                      check=True).stdout, flags=re.M))
    named = set(re.findall(r"`make ([\w-]+)`", README)) | set(re.findall(r"^make ([\w-]+)", README, flags=re.M))
    assert named and named <= listed, named - listed


def test_the_five_lines_run():
    (code,) = re.findall(r"```python\n(.*?)```", README, flags=re.S)
    assert len(code.strip().splitlines()) == 5
    printed, namespace = io.StringIO(), {}
    torch.manual_seed(0)
    with contextlib.redirect_stdout(printed):
        exec(compile(code, "README.md", "exec"), namespace)
    assert namespace["q"].shape == (1, 8, 4, 64)
    tokens = namespace["model"].generate(torch.tensor([[1, 2, 3]]), max_new_tokens=8)
    assert tokens.shape == (1, 8) and str(tokens) in printed.getvalue()
    expected = namespace["hf"].generate(torch.tensor([[1, 2, 3]]), max_new_tokens=8, do_sample=False)[:, 3:]
    assert torch.equal(tokens, expected)
