"""The set-up scripts cannot race: no shell script of the project pipes into a reader that may stop early while
`pipefail` is on.

Under `set -o pipefail` a pipeline fails when any of its commands fails. A reader such as `grep -q` or `head` exits as
soon as it has what it wants; a writer still writing then dies of SIGPIPE (exit 141), and the whole pipeline fails,
or not, depending on how the two processes were scheduled. `fc-list | grep -q FONT` failed that way about one time in
two on a clean machine. The scripts capture a command's output whole and search it instead.
"""

import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from paths import ROOT

SCRIPTS = sorted(
    [*ROOT.glob("scripts/*.sh"), *ROOT.glob("tests/**/*.sh"), ROOT / ".ci" / "run", ROOT / "binder" / "postBuild"]
)
"""Every shell script of the project: the set-up scripts, CI's entry point and Binder's."""

SEPARATORS = {"|", "||", "&&", ";", "&", "(", ")", "{", "}", "\n"}


def _logical_lines(text: str) -> list[str]:
    """The script's lines with backslash continuations joined and here-document bodies left out."""
    lines, heredoc_end = [], None
    for line in text.replace("\\\n", " ").splitlines():
        if heredoc_end is not None:
            if line.strip() == heredoc_end:
                heredoc_end = None
            continue
        match = re.search(r"<<-?\s*(['\"]?)(\w+)\1", line)
        if match:
            heredoc_end = match.group(2)
        lines.append(line)
    return lines


def _tokens(line: str) -> list[str]:
    lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|(){}")
    lexer.whitespace_split = True
    lexer.commenters = "#"
    return list(lexer)


def _pipelines(line: str) -> list[list[list[str]]]:
    """The pipelines of one line: each a list of commands (lists of words), split on `|` but not on `||`."""
    pipelines, pipeline, command = [], [], []
    for token in _tokens(line) + [";"]:
        if token == "|":
            pipeline.append(command)
            command = []
        elif token in SEPARATORS:
            pipeline.append(command)
            if len([c for c in pipeline if c]) > 1:
                pipelines.append([c for c in pipeline if c])
            pipeline, command = [], []
        else:
            command.append(token)
    return pipelines


def _stops_early(command: list[str]) -> bool:
    """A command that may exit before it has read all its input."""
    name, args = command[0], command[1:]
    if name in {"head", "read"}:
        return True
    if name in {"grep", "egrep", "fgrep"}:
        return any(
            a in {"--quiet", "--silent", "--files-with-matches", "--files-without-match"} or a.startswith("--max-count")
            or (re.fullmatch(r"-[A-Za-z]+", a) and set(a[1:]) & set("qslLm"))
            for a in args
        )
    if name == "sed":
        return any(re.search(r"(^|[;\s}])[qQ]\b", a) for a in args if not a.startswith("-"))
    if name == "awk":
        return any(re.search(r"\bexit\b", a) for a in args)
    return False


def _pipefail_on(tokens: list[str]) -> bool:
    """`set -o pipefail`, `set -euo pipefail` and the like."""
    return bool(tokens) and tokens[0] == "set" and "pipefail" in tokens and any(
        t.startswith("-") and "o" in t for t in tokens[1:tokens.index("pipefail")]
    )


def early_exit_pipes(text: str) -> list[str]:
    """The pipelines of a shell script, read after it turns pipefail on, whose reader may stop early."""
    found, pipefail = [], False
    for line in _logical_lines(text):
        if _pipefail_on(_tokens(line)):
            pipefail = True
        if not pipefail:
            continue
        for pipeline in _pipelines(line):
            if any(_stops_early(command) for command in pipeline[1:]):
                found.append(line.strip())
    return found


def test_every_script_is_found():
    names = {p.relative_to(ROOT).as_posix() for p in SCRIPTS}
    assert {"scripts/apt_install.sh", "scripts/install_chromium.sh", "scripts/install_tex.sh", ".ci/run"} <= names


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_script_pipes_into_a_reader_that_stops_early_under_pipefail(script):
    assert early_exit_pipes(script.read_text()) == []


PLANTED = [
    'fc-list | grep -q "WenQuanYi Micro Hei" || exit 1',
    "xelatex --version | head -n 1",
    "dpkg -l | grep -qE '^ii +chromium'",
    "apt-cache policy | sed -n '1p;q'",
    "ps aux | awk '/x/ {print; exit}'",
    "seq 100000 | grep --max-count=1 7 >/dev/null",
    "ls \\\n    | head -1",
]


@pytest.mark.parametrize("line", PLANTED)
def test_a_planted_early_exit_pipe_is_caught(line):
    assert early_exit_pipes(f"#!/usr/bin/env bash\nset -euo pipefail\n{line}\n"), line


@pytest.mark.parametrize("text", [
    "#!/usr/bin/env bash\nfc-list | grep -q WenQuanYi\n",  # no pipefail
    "#!/usr/bin/env bash\nset -euo pipefail\nfonts=$(fc-list : family)\n[[ $fonts == *WenQuanYi* ]]\n",
    "#!/usr/bin/env bash\nset -euo pipefail\nfc-list | grep WenQuanYi >/dev/null\n",  # grep reads everything
    "#!/usr/bin/env bash\nset -euo pipefail\ncommand -v x >/dev/null || echo 'a | head'\n",
    "#!/usr/bin/env bash\nset -euo pipefail\ncat > f <<'EOF'\nx | head -1\nEOF\n",
])
def test_a_safe_script_passes(text):
    assert early_exit_pipes(text) == []


def test_the_race_is_real():
    """Why the rule exists: a writer that outlives its early-exiting reader fails the pipeline under pipefail."""
    racing = subprocess.run(["bash", "-c", "set -o pipefail; yes | head -n 1 >/dev/null"])
    assert racing.returncode == 141  # 128 + SIGPIPE
    captured = subprocess.run(["bash", "-c", 'set -o pipefail; out=$(seq 100000); [[ $out == *"99999"* ]]'])
    assert captured.returncode == 0


def stub_machine(folder: Path, families: str) -> dict:
    """A copy of scripts/ beside stand-ins for the commands install_tex.sh runs: apt_install.sh only records that it
    was called, dpkg and the TeX commands succeed, and fc-list lists `families`. Returns the environment to run in."""
    scripts = folder / "scripts"
    scripts.mkdir()
    shutil.copy(ROOT / "scripts" / "install_tex.sh", scripts)
    (scripts / "apt_install.sh").write_text(f'#!/usr/bin/env bash\necho "$@" >> {folder / "installed"}\n')
    bin_ = folder / "bin"
    bin_.mkdir()
    stubs = {
        "dpkg": "exit 0", "xelatex": 'echo "XeTeX 3.14"', "latexmk": "exit 0", "pdftotext": "exit 0", "pdftoppm": "exit 0",
        "kpsewhich": 'echo "/usr/share/texmf/$1"', "fc-list": f"printf '%s\\n' {shlex.quote(families)}",
    }
    for name, body in stubs.items():
        (bin_ / name).write_text(f"#!/usr/bin/env bash\n{body}\n")
        (bin_ / name).chmod(0o755)
    return {"PATH": f"{bin_}:/usr/bin:/bin", "HOME": str(folder)}


ALL_FONTS = "FreeSerif\nDejaVu Sans,DejaVu Sans Condensed\nDejaVu Sans Mono\nWenQuanYi Micro Hei,文泉驿微米黑\nWenQuanYi Micro Hei Mono"


def test_install_tex_installs_nothing_when_everything_is_there(tmp_path):
    env = stub_machine(tmp_path, ALL_FONTS)
    result = subprocess.run(["bash", str(tmp_path / "scripts" / "install_tex.sh")], env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert not (tmp_path / "installed").exists()


def test_install_tex_fails_when_what_it_installed_is_not_there(tmp_path):
    """apt-get returned, but the font is still missing: the script says what is missing and fails."""
    env = stub_machine(tmp_path, ALL_FONTS.replace("WenQuanYi Micro Hei Mono", "Noto Sans"))
    result = subprocess.run(["bash", str(tmp_path / "scripts" / "install_tex.sh")], env=env, capture_output=True, text=True)
    assert result.returncode == 1
    assert "fonts-wqy-microhei" in (tmp_path / "installed").read_text()
    assert "the font WenQuanYi Micro Hei Mono" in result.stderr


def test_apt_install_and_install_chromium_check_after_installing():
    """apt_install.sh asks dpkg for every package after apt-get; install_chromium.sh starts the browser it installed."""
    apt = (ROOT / "scripts" / "apt_install.sh").read_text()
    assert 'dpkg -s "$@"' in apt.split("apt-get install", 1)[1]
    chromium = (ROOT / "scripts" / "install_chromium.sh").read_text()
    assert "/usr/bin/chromium --version ||" in chromium.split("apt_install.sh", 1)[1]
