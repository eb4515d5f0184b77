"""A chapter's MyST Markdown as plain Markdown that JupyterLab renders as the site does: the student editions' text.

JupyterLab renders a Markdown cell as CommonMark with $…$ and $$…$$ math (MathJax), and nothing of MyST: a role,
a directive, a directive's options and a label `(name)=` show as raw text. A teacher's JupyterHub clones the
repository with nbgitpuller and runs no set-up script, so no JupyterLab extension (jupyterlab-myst) can be relied on
there, and jupyterlab-myst would not fill in glued numbers either. So the student editions carry Markdown that needs
nothing: `markdown_of` rewrites each MyST construct the chapters use into what the site shows in its place:

- `{glue:text}` `name:format` → the value the executed chapter glued, formatted as myst-nb formats it; `{glue:md}` →
  the Markdown it glued, its own MyST rewritten the same way;
- `{eq}` → the equation's number as the site numbers it, "(6.3)", and each labelled equation gets `\\tag{6.3}`;
- `{ref}` / `{doc}` / `{numref}` / `{prf:ref}` → the target's title, or "Exercise 6.1", "Theorem 6.1", "Table 14.1";
- `{cite}` → "(Su et al., 2021)", from the edition's references.bib;
- labels `(name)=` are dropped; an admonition, a `prf:` block, an exercise or a table becomes a block quote opening
  with its title in bold; a dropdown (a hint) becomes an HTML `<details>` block, which JupyterLab renders folded;
- `{math}` → a `$$` block; `{literalinclude}` → the included code, as Sphinx picks it (`:pyobject:`, …), without the argument checks'
  decorator (listings.py);
- in the Chinese edition, a paragraph's lines are joined where a break would show as a gap (chinese_lines.py).

A construct it does not know raises ValueError, so that a new one is taught here before a student meets it raw.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from chinese_lines import join_markdown_lines
from listings import without_checks

NAMES = {
    "en": {"exercise": "Exercise", "table": "Table", "proof": "Proof", "definition": "Definition", "theorem": "Theorem",
           "lemma": "Lemma", "corollary": "Corollary", "remark": "Remark", "example": "Example", "proposition": "Proposition",
           "et_al": "et al.", "and": "and"},
    "zh": {"exercise": "练习", "table": "表", "proof": "证明", "definition": "定义", "theorem": "定理", "lemma": "引理",
           "corollary": "推论", "remark": "注", "example": "例", "proposition": "命题", "et_al": "et al.", "and": "and"},
}
"""The words the site's extensions (sphinx-exercise, sphinx-proof, Sphinx's numfig) put before a number, per language."""

LABEL_LINE = re.compile(r"^\s*\(([\w.:-]+)\)=\s*$")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*$")
OPENING = re.compile(r"^(\s*)(`{3,}|:{3,})\{([\w:-]+)\}[ \t]*(.*?)\s*$")
PLAIN_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})(.*)$")
OPTION = re.compile(r"^\s*:([\w-]+):(?:\s+(.*?))?\s*$")
DISPLAY_MATH_OPEN = re.compile(r"^(\s*)\$\$(.*)$")
LABELLED_MATH_CLOSE = re.compile(r"^(.*?)\$\$\s*(?:\(([\w.:-]+)\))?\s*$")
ROLE = re.compile(r"\{([\w:-]+)\}`([^`]*)`")
EXPLICIT_TITLE = re.compile(r"^(.*?)\s*<([^<>]+)>$", re.S)


@dataclass
class Target:
    """What a reference to a label shows: `text` for {ref}/{doc}/{prf:ref}, `number` for {eq}/{numref}."""

    text: str
    number: str = ""


@dataclass
class Edition:
    """The labels of one edition's chapters (book/ or book/zh/), numbered as the site numbers them, and its citations."""

    language: str
    chapters: dict[str, str] = field(default_factory=dict)
    """A chapter's file stem → its number ("6"), for the numbered parts of _toc.yml."""
    targets: dict[str, Target] = field(default_factory=dict)
    citations: dict[str, str] = field(default_factory=dict)
    """A reference key → "Su et al., 2021"."""

    def target(self, label: str) -> Target:
        if label not in self.targets:
            raise ValueError(f"no label {label!r} in the {self.language} edition")
        return self.targets[label]


def toc_files(toc: Path) -> list[tuple[str, bool]]:
    """(the file named, whether its part is numbered) for each chapter of _toc.yml, in order."""
    import yaml

    config = yaml.safe_load(toc.read_text())
    return [(chapter["file"], bool(part.get("numbered"))) for part in config["parts"] for chapter in part["chapters"]]


def citation_texts(bib: Path) -> dict[str, str]:
    """Each entry of a .bib file as an author–year citation: "Su et al., 2021", "Vaswani et al., 2017"."""
    from pybtex.database import parse_file

    texts = {}
    for key, entry in parse_file(str(bib)).entries.items():
        people = entry.persons.get("author") or entry.persons.get("editor") or []
        names = [" ".join(person.last_names) or str(person) for person in people]
        names = [re.sub(r"[{}]", "", name) for name in names]
        if not names:
            who = re.sub(r"[{}]", "", entry.fields.get("organization", entry.fields.get("title", key)))
        elif len(names) == 1:
            who = names[0]
        elif len(names) == 2:
            who = f"{names[0]} and {names[1]}"
        else:
            who = f"{names[0]} et al."
        texts[key] = f"{who}, {entry.fields.get('year', 'n.d.')}"
    return texts


def edition_of(root: Path, language: str) -> Edition:
    """The labels of the edition whose _toc.yml is in `root`: the repository root (English) or book/zh (Chinese)."""
    edition = Edition(language)
    number = 0
    for name, numbered in toc_files(root / "_toc.yml"):
        if numbered:
            number += 1
            edition.chapters[Path(name).name] = str(number)
    words = NAMES[language]
    import yaml

    for name, _ in toc_files(root / "_toc.yml") + [(yaml.safe_load((root / "_toc.yml").read_text())["root"], False)]:
        path = root / f"{name}.md"
        if not path.is_file():
            continue
        chapter = edition.chapters.get(path.stem)
        text = path.read_text()
        title = next((m.group(2) for m in map(HEADING.match, text.splitlines()) if m and m.group(1) == "#"), path.stem)
        edition.targets[path.stem] = Target(title)
        edition.targets[name] = Target(title)
        lines = text.splitlines()
        counters: dict[str, int] = {}

        def numbered_as(kind: str) -> str:
            counters[kind] = counters.get(kind, 0) + 1
            return f"{chapter}.{counters[kind]}" if chapter else str(counters[kind])

        for i, line in enumerate(lines):
            label = LABEL_LINE.match(line)
            if label:
                heading = next((HEADING.match(after) for after in lines[i + 1:] if after.strip()), None)
                edition.targets[label.group(1)] = Target(heading.group(2) if heading else label.group(1))
            closing = LABELLED_MATH_CLOSE.match(line)
            if line.lstrip().startswith("$$") and closing and closing.group(2):
                edition.targets[closing.group(2)] = Target("", f"({numbered_as('equation')})")
            opening = OPENING.match(line)
            if opening:
                kind = opening.group(3)
                options = {}
                for after in lines[i + 1:]:
                    option = OPTION.match(after)
                    if not option:
                        break
                    options[option.group(1)] = option.group(2) or ""
                label = options.get("label") or options.get("name")
                if kind == "math" and label:
                    edition.targets[label] = Target("", f"({numbered_as('equation')})")
                elif kind == "exercise":
                    number_text = f"{words['exercise']} {numbered_as('exercise')}"
                    if label:
                        edition.targets[label] = Target(number_text, number_text)
                elif kind.startswith("prf:") and kind != "prf:proof":
                    proof_kind = kind.split(":", 1)[1]
                    number_text = f"{words.get(proof_kind, proof_kind.title())} {numbered_as(kind)}"
                    if label:
                        edition.targets[label] = Target(number_text, number_text)
                elif kind == "table":
                    number_text = f"{words['table']} {numbered_as('table')}"
                    if label:
                        edition.targets[label] = Target(opening.group(4) or number_text, number_text)
    import yaml

    config = yaml.safe_load((root / "_config.yml").read_text())
    for bib in config.get("bibtex_bibfiles", []):
        edition.citations.update(citation_texts((root / bib).resolve()))
    return edition


def glued_text(value: str, spec: str) -> str:
    """A glued text/plain value as `{glue:text}` shows it with the format spec (myst-nb's own formatting)."""
    from myst_nb.core.variables import format_plain_text

    return format_plain_text(value, spec)


@dataclass
class Chapter:
    """What the rewriting needs to know of one chapter: its file, its edition and the values its code glued."""

    path: Path
    edition: Edition
    glued: dict[str, dict[str, str]]
    """A glued name → its output (MIME type → data; "text/plain" for a number), from the executed chapter."""
    used: dict[str, str] = field(default_factory=dict)
    """The glued text values the rewritten text showed (name → text/plain)."""
    used_markdown: dict[str, str] = field(default_factory=dict)
    """The glued Markdown it showed (`{glue:md}`: name → text/markdown)."""
    attachments: dict[str, dict[str, str]] = field(default_factory=dict)
    """The images the last rewritten cell shows (a glued figure), as the cell's attachments: file name → MIME bundle."""

    @property
    def words(self) -> dict[str, str]:
        return NAMES[self.edition.language]

    def role(self, name: str, content: str) -> str:
        explicit = EXPLICIT_TITLE.match(content)
        title, label = (explicit.group(1), explicit.group(2)) if explicit else (None, content)
        if name == "glue:text":
            key, _, spec = label.rpartition(":") if ":" in label else (label, "", "s")
            if key not in self.glued or "text/plain" not in self.glued[key]:
                raise ValueError(f"{self.path.name}: no glued value {key!r}: run the chapter first")
            self.used[key] = self.glued[key]["text/plain"]
            return glued_text(self.used[key], spec or "s")
        if name == "glue:md":
            return self.inline(self.glued_markdown(label.split(":")[0]).strip())
        if name == "eq":
            return self.edition.target(label).number
        if name == "numref":
            target = self.edition.target(label)
            return title.replace("%s", target.number.split(" ")[-1]) if title else target.number
        if name in ("ref", "doc", "prf:ref"):
            if title:
                return title
            return self.edition.target(label.removesuffix(".md").split("/")[-1] if name == "doc" else label).text
        if name in ("cite", "cite:p"):
            keys = [key.strip() for key in label.split(",")]
            missing = [key for key in keys if key not in self.edition.citations]
            if missing:
                raise ValueError(f"{self.path.name}: no reference {missing} in references.bib")
            return "(" + "; ".join(self.edition.citations[key] for key in keys) + ")"
        if name == "cite:t":
            return "; ".join(self.edition.citations[key.strip()].replace(", ", " (", 1) + ")" for key in label.split(","))
        raise ValueError(f"{self.path.name}: the role {{{name}}} has no plain-Markdown form yet (classroom_markdown.py)")

    def inline(self, line: str) -> str:
        return ROLE.sub(lambda m: self.role(m.group(1), m.group(2)), line)

    def equation_tag(self, label: str | None) -> str:
        return rf" \tag{{{self.edition.target(label).number.strip('()')}}}" if label else ""

    # ---- blocks ----

    def markdown(self, source: str) -> str:
        """The Markdown cell `source`, rewritten (its images in `attachments`)."""
        self.attachments = {}
        lines = self.block(source.splitlines())
        text = "\n".join(lines)
        if self.edition.language == "zh":
            text = join_markdown_lines(text)
        return re.sub(r"\n{3,}", "\n\n", text).strip("\n")

    def block(self, lines: list[str]) -> list[str]:
        out: list[str] = []
        i = 0
        while i < len(lines):
            line = lines[i]
            if LABEL_LINE.match(line):
                i += 1
                continue
            opening = OPENING.match(line)
            if opening:
                indent, fence, name, argument = opening.groups()
                end = self.closing(lines, i + 1, fence)
                body = lines[i + 1:end]
                options: dict[str, str] = {}
                while body and OPTION.match(body[0]):
                    option = OPTION.match(body[0])
                    options[option.group(1)] = option.group(2) or ""
                    body = body[1:]
                body = [b[len(indent):] if b.startswith(indent) else b.lstrip() for b in body]
                out += [indent + b if b else b for b in self.directive(name, argument, options, body)]
                i = end + 1
                continue
            plain = PLAIN_FENCE.match(line)
            if plain:
                end = self.closing(lines, i + 1, plain.group(2))
                out += lines[i:end + 1]
                i = end + 1
                continue
            math = DISPLAY_MATH_OPEN.match(line)
            if math:
                indent, rest = math.groups()
                closing = LABELLED_MATH_CLOSE.match(rest)
                if closing:
                    body, label, i = [closing.group(1)], closing.group(2), i + 1
                else:
                    body, j = [rest] if rest.strip() else [], i + 1
                    while j < len(lines) and not LABELLED_MATH_CLOSE.match(lines[j]):
                        body.append(lines[j])
                        j += 1
                    if j == len(lines):
                        raise ValueError(f"{self.path.name}: a $$ block is not closed: {line!r}")
                    closing = LABELLED_MATH_CLOSE.match(lines[j])
                    if closing.group(1).strip():
                        body.append(closing.group(1))
                    label, i = closing.group(2), j + 1
                out += self.display_math(body, label, indent)
                continue
            heading = HEADING.match(line)
            number = self.edition.chapters.get(self.path.stem)
            if heading and heading.group(1) == "#" and number:  # the site numbers the chapter's title: "6. RoPE in two dimensions"
                line = f"# {number}. {heading.group(2)}"
            out.append(self.inline(line))
            i += 1
        return out

    @staticmethod
    def closing(lines: list[str], start: int, fence: str) -> int:
        """The index of the line that closes a fence opened with `fence` (a longer fence of the same kind closes it too;
        a nested opening of the same kind and length is skipped over)."""
        depth = 0
        for j in range(start, len(lines)):
            stripped = lines[j].strip()
            if stripped.startswith(fence) and re.fullmatch(re.escape(fence[0]) + "{%d,}\\{[\\w:-]+\\}.*" % len(fence), stripped):
                depth += 1
            elif re.fullmatch(re.escape(fence[0]) + "{%d,}" % len(fence), stripped):
                if depth == 0:
                    return j
                depth -= 1
        raise ValueError(f"a {fence} fence is not closed")

    def display_math(self, body: list[str], label: str | None, indent: str = "") -> list[str]:
        """A $$ block, on one line (so that a block quote's `>` cannot enter the TeX), with the site's number."""
        tex = " ".join(line.strip() for line in body if line.strip())
        return ["", f"{indent}$${tex}{self.equation_tag(label)}$$", ""]

    def directive(self, name: str, argument: str, options: dict[str, str], body: list[str]) -> list[str]:
        words = self.words
        label = options.get("label") or options.get("name")
        if name == "math":
            return self.display_math(body, label)
        if name == "literalinclude":
            return ["", f"```{options.get('language', 'python')}", *self.included(argument, options), "```", ""]
        if name == "glue:md":
            return ["", *self.block(self.glued_markdown(argument.strip()).splitlines()), ""]
        if name in ("glue", "glue:figure", "glue:any"):
            return ["", *self.glued_figure(argument.strip(), options), *([""] + self.block(body) if body else []), ""]
        if name in ("solution-start", "solution-end", "bibliography"):
            return []
        if name == "only":
            return self.block(body) if "html" in argument.split() else []
        if name == "raw":
            return body if argument.strip() == "html" else []
        inner = self.block(body)
        classes = options.get("class", "").split()
        if name == "admonition" and "dropdown" in classes:
            return ["", f"<details><summary>{self.inline(argument)}</summary>", "", *inner, "", "</details>", ""]
        if name == "admonition" or name in ("note", "tip", "important", "warning", "hint", "attention", "caution"):
            title = argument or name.title()
            return quoted([f"**{self.inline(title)}**", "", *inner])
        if name == "exercise":
            title = self.edition.target(label).text if label else words["exercise"]
            return quoted([f"**{title}**" + (f" ({self.inline(argument)})" if argument else ""), "", *inner])
        if name == "prf:proof":
            return quoted([f"**{words['proof']}.**", "", *inner, "", "∎"])
        if name.startswith("prf:"):
            kind = name.split(":", 1)[1]
            title = self.edition.target(label).text if label else words.get(kind, kind.title())
            return quoted([f"**{title}**" + (f" ({self.inline(argument)})" if argument else ""), "", *inner])
        if name == "table":
            title = self.edition.target(label).number if label else words["table"]
            return ["", f"**{title}** {self.inline(argument)}".rstrip(), "", *inner, ""]
        raise ValueError(f"{self.path.name}: the directive {{{name}}} has no plain-Markdown form yet (classroom_markdown.py)")

    def glued_markdown(self, name: str) -> str:
        """A glued value's Markdown (`{glue:md}`; MyST in it is rewritten like the page's own)."""
        bundle = self.glued[name] if name in self.glued else {}
        if "text/markdown" not in bundle:
            raise ValueError(f"{self.path.name}: no glued Markdown {name!r}: run the chapter first")
        self.used_markdown[name] = bundle["text/markdown"]
        return bundle["text/markdown"]

    def glued_figure(self, name: str, options: dict[str, str]) -> list[str]:
        """A glued figure as the image it is, attached to the cell (JupyterLab shows `attachment:` images)."""
        bundle = self.glued[name] if name in self.glued else {}
        for mime, extension in IMAGE_TYPES.items():
            if mime in bundle:
                self.attachments[f"{name}.{extension}"] = {mime: bundle[mime]}
                return [f"![{options.get('alt', name)}](attachment:{name}.{extension})"]
        raise ValueError(f"{self.path.name}: no glued figure {name!r}: run the chapter first")

    def included(self, argument: str, options: dict[str, str]) -> list[str]:
        """The lines a `{literalinclude}` shows, picked as Sphinx picks them."""
        path = (self.path.parent / argument).resolve()
        lines = path.read_text().splitlines()
        if "pyobject" in options:
            from sphinx.pycode import ModuleAnalyzer

            tags = ModuleAnalyzer.for_file(str(path), "").find_tags()
            if options["pyobject"] not in tags:
                raise ValueError(f"{self.path.name}: {argument} has no {options['pyobject']}")
            _, start, end = tags[options["pyobject"]]
            lines = lines[start - 1:end]
        if "start-at" in options:
            lines = lines[next(i for i, line in enumerate(lines) if options["start-at"] in line):]
        if "start-after" in options:
            lines = lines[next(i for i, line in enumerate(lines) if options["start-after"] in line) + 1:]
        if "end-before" in options:
            lines = lines[:next(i for i, line in enumerate(lines) if options["end-before"] in line)]
        if "end-at" in options:
            lines = lines[:next(i for i, line in enumerate(lines) if options["end-at"] in line) + 1]
        while lines and not lines[-1].strip():
            lines.pop()
        if "dedent" in options:
            lines = [line[int(options["dedent"]):] for line in lines]
        return without_checks(lines)


IMAGE_TYPES = {"image/png": "png", "image/jpeg": "jpg", "image/svg+xml": "svg"}


def quoted(lines: list[str]) -> list[str]:
    """A block quote of the lines (a nested one's `>` deepens)."""
    squeezed: list[str] = []
    for line in lines:
        if line.strip() or (squeezed and squeezed[-1].strip()):
            squeezed.append(line)
    while squeezed and not squeezed[-1].strip():
        squeezed.pop()
    return ["", *(f"> {line}".rstrip() for line in squeezed), ""]


def glued_values(notebook) -> dict[str, dict[str, str]]:
    """Every value a notebook's cells glued (myst_nb.glue), name → its output (MIME type → data), from the outputs."""
    values = {}
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            record = output.get("metadata", {}).get("scrapbook")
            if not record:
                continue
            prefix = record.get("mime_prefix", "")
            values[record["name"]] = {mime[len(prefix):]: data for mime, data in output.get("data", {}).items()
                                      if mime.startswith(prefix)}
    return values
