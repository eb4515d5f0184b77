"""A chapter's MyST Markdown as plain Markdown that shows what the site shows: the text of the student editions and of
the slide decks.

JupyterLab renders a Markdown cell as CommonMark with $…$ and $$…$$ math (MathJax), and nothing of MyST: a role,
a directive, a directive's options and a label `(name)=` show as raw text. A teacher's JupyterHub clones the
repository with nbgitpuller and runs no set-up script, so no JupyterLab extension (jupyterlab-myst) can be relied on
there, and jupyterlab-myst would not fill in glued numbers either. nbconvert, which writes the decks, renders the same
plain Markdown. So both carry Markdown that needs nothing: `Chapter.markdown` rewrites each MyST construct the chapters
use into what the site shows in its place (slides.py's `SlideMarkdown` is its form for a projected slide):

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

The labels, numbers and citations are the edition's (`edition_of`), read from its pages as the site shows them. A
reference the edition cannot resolve raises UnresolvedReference, so that the build fails rather than showing "(?)";
a construct it does not know raises ValueError, so that a new one is taught here before a student meets it raw.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from chinese_lines import join_markdown_lines
from listings import without_checks

NAMES = {
    "en": {"exercise": "Exercise", "table": "Table", "proof": "Proof", "definition": "Definition", "theorem": "Theorem",
           "lemma": "Lemma", "corollary": "Corollary", "remark": "Remark", "example": "Example", "proposition": "Proposition"},
    "zh": {"exercise": "练习", "table": "表", "proof": "证明", "definition": "定义", "theorem": "定理", "lemma": "引理",
           "corollary": "推论", "remark": "注", "example": "例", "proposition": "命题"},
}
"""The words the site's extensions (sphinx-exercise, sphinx-proof, Sphinx's numfig) put before a number, per language."""

ADMONITIONS = ("admonition", "note", "tip", "important", "warning", "hint", "attention", "caution")
"""The admonition directives: a titled box on the site."""

REMOVED_TAG = "remove-cell"
"""The tag of the cells the site leaves out of a page: the decks' slide and notes cells, and the cells that only glue a
number into the text."""

LABEL_LINE = re.compile(r"^\s*\(([\w.:-]+)\)=\s*$")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*$")
OPENING = re.compile(r"^(\s*)(`{3,}|:{3,})\{([\w:-]+)\}[ \t]*(.*?)\s*$")
PLAIN_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})(.*)$")
OPTION = re.compile(r"^\s*:([\w-]+):(?:\s+(.*?))?\s*$")
DISPLAY_MATH_OPEN = re.compile(r"^(\s*)\$\$(.*)$")
LABELLED_MATH_CLOSE = re.compile(r"^(.*?)\$\$\s*(?:\(([\w.:-]+)\))?\s*$")
ROLE = re.compile(r"\{([\w:-]+)\}`([^`]*)`")
EXPLICIT_TITLE = re.compile(r"^(.*?)\s*<([^<>]+)>$", re.S)


class UnresolvedReference(ValueError):
    """A page names a label, a page, a reference or a glued value that its edition, or its chapter's run, does not have."""


# ---- the constructs of a page ----


@dataclass
class DisplayMath:
    """A $$ block: its TeX lines as the page writes them (indented as the block is), the block's indent and its label
    (`$$ (label)`)."""

    lines: list[str]
    indent: str = ""
    label: str | None = None

    @property
    def tex(self) -> str:
        """The TeX, unindented."""
        return "\n".join(line[len(self.indent):] if line.startswith(self.indent) else line for line in self.lines)


def display_math_at(lines: list[str], i: int) -> tuple[DisplayMath, int] | None:
    """The $$ block that opens at line i, and the line after it; None where none opens there."""
    opening = DISPLAY_MATH_OPEN.match(lines[i])
    if not opening:
        return None
    indent, rest = opening.groups()
    closing = LABELLED_MATH_CLOSE.match(rest)
    if closing:  # $$ … $$ on one line
        return DisplayMath([closing.group(1)], indent, closing.group(2)), i + 1
    end = next((j for j in range(i + 1, len(lines)) if LABELLED_MATH_CLOSE.match(lines[j])), None)
    if end is None:
        raise ValueError(f"a $$ block is not closed: {lines[i]!r}")
    closing = LABELLED_MATH_CLOSE.match(lines[end])
    first = [rest] if rest.strip() else []
    last = [closing.group(1)] if closing.group(1).strip() else []
    return DisplayMath(first + lines[i + 1:end] + last, indent, closing.group(2)), end + 1


@dataclass
class Directive:
    """A fenced directive: its name, argument, options, and its body's lines, unindented."""

    name: str
    argument: str
    options: dict[str, str]
    body: list[str]
    indent: str = ""

    @property
    def label(self) -> str | None:
        return self.options.get("label") or self.options.get("name")

    @classmethod
    def at(cls, lines: list[str], i: int) -> tuple[Directive, int]:
        """The directive whose fence opens at line i, and the line after its closing fence."""
        indent, fence, name, argument = OPENING.match(lines[i]).groups()
        end = closing_fence(lines, i + 1, fence)
        body, options = lines[i + 1:end], {}
        while body and OPTION.match(body[0]):
            option = OPTION.match(body[0])
            options[option.group(1)] = option.group(2) or ""
            body = body[1:]
        body = [line[len(indent):] if line.startswith(indent) else line.lstrip() for line in body]
        return cls(name, argument, options, body, indent), end + 1


def closing_fence(lines: list[str], start: int, fence: str) -> int:
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


# ---- an edition's labels, numbers and citations ----


@dataclass
class Target:
    """What a reference to a label shows: `text` for {ref}/{doc}/{prf:ref}, `number` for {numref}."""

    text: str
    number: str = ""


@dataclass
class Equation:
    """A labelled equation: its number as the site gives it ("6.3") and its TeX as the page writes it."""

    number: str
    tex: str


@dataclass
class Numbers:
    """The numbers the site gives a page's equations, exercises, theorems and tables, each kind in order: "6.1", "6.2",
    … in chapter 6, and "1", "2", … on a page outside the numbered parts."""

    chapter: int | None
    counts: dict[str, int] = field(default_factory=dict)

    def next(self, kind: str) -> str:
        self.counts[kind] = self.counts.get(kind, 0) + 1
        return f"{self.chapter}.{self.counts[kind]}" if self.chapter else str(self.counts[kind])


@dataclass
class Edition:
    """The labels of one edition's pages (book/ or book/zh/), numbered as the site numbers them, and its citations."""

    language: str
    chapters: dict[str, int] = field(default_factory=dict)
    """A chapter's file stem → its number (6), for the numbered parts of _toc.yml."""
    targets: dict[str, Target] = field(default_factory=dict)
    """A page's file stem or a label → its target (a label may name a section and an equation, as Sphinx keeps the
    labels of equations apart)."""
    equations: dict[str, Equation] = field(default_factory=dict)
    citations: dict[str, str] = field(default_factory=dict)
    """A reference key → "Su et al., 2021"."""

    def target(self, label: str) -> Target:
        if label not in self.targets:
            raise UnresolvedReference(f"no label {label!r} in the {self.language} edition")
        return self.targets[label]

    def equation(self, label: str) -> Equation:
        if label not in self.equations:
            raise UnresolvedReference(f"no labelled equation {label!r} in the {self.language} edition")
        return self.equations[label]

    def citation(self, key: str) -> str:
        if key not in self.citations:
            raise UnresolvedReference(f"no reference {key!r} in references.bib")
        return self.citations[key]

    def add_page(self, path: Path) -> None:
        """The targets of one page: its title, and its labelled headings, equations, exercises, theorems and tables,
        numbered per chapter as the site numbers them."""
        lines = page_text(path).splitlines()
        title = next((m.group(2) for m in map(HEADING.match, lines) if m and m.group(1) == "#"), path.stem)
        self.targets[path.stem] = Target(title)
        numbers = Numbers(self.chapters.get(path.stem))
        i = 0
        while i < len(lines):
            found = display_math_at(lines, i)
            if found:
                math, i = found
                if math.label:
                    self.equations[math.label] = Equation(numbers.next("equation"), math.tex)
                continue
            label = LABEL_LINE.match(lines[i])
            if label:
                self.targets[label.group(1)] = Target(heading_after(lines, i))
            elif OPENING.match(lines[i]):
                self.add_directive(Directive.at(lines, i)[0], numbers)
            i += 1

    def add_directive(self, directive: Directive, numbers: Numbers) -> None:
        """The target of a directive the site numbers: a {math} equation, an exercise, a `prf:` block, a table."""
        kind, label = directive.name, directive.label
        if kind == "math" and label:
            self.equations[label] = Equation(numbers.next("equation"), "\n".join(directive.body))
        elif kind in ("exercise", "table") or (kind.startswith("prf:") and kind != "prf:proof"):
            word = kind.split(":")[-1]
            numbered = f"{NAMES[self.language].get(word, word.title())} {numbers.next(word)}"
            if label:
                self.targets[label] = Target(directive.argument if kind == "table" and directive.argument else numbered, numbered)


def toc(root: Path) -> dict:
    """The edition's _toc.yml (`root`: the repository root for the English edition, book/zh for the Chinese)."""
    import yaml

    return yaml.safe_load((root / "_toc.yml").read_text())


def chapter_numbers(root: Path) -> dict[str, int]:
    """'rope_2d' → 6: the number the site gives each chapter of a numbered part of _toc.yml (`numbered: 1`). The numbers
    run on from one numbered part to the next, as Jupyter Book's multi-toc numbering gives them; the pages of an
    unnumbered part and the root page have none."""
    numbered = [chapter["file"] for part in toc(root)["parts"] if part.get("numbered") for chapter in part["chapters"]]
    return {Path(file).name: number for number, file in enumerate(numbered, start=1)}


def page_names(root: Path) -> list[str]:
    """Every page of the edition's _toc.yml, as it names them ("book/rope_2d", or "rope_2d" in book/zh), the root last."""
    config = toc(root)
    return [chapter["file"] for part in config["parts"] for chapter in part["chapters"]] + [config["root"]]


def citations(bib: Path) -> dict[str, str]:
    """Each entry of a .bib file as an author–year citation: "Su et al., 2021", "Vaswani et al., 2017"."""
    from pybtex.database import parse_file

    texts = {}
    for key, entry in parse_file(str(bib)).entries.items():
        people = entry.persons.get("author") or entry.persons.get("editor") or []
        names = [re.sub(r"[{}]", "", " ".join(person.last_names) or str(person)) for person in people]
        if not names:
            who = re.sub(r"[{}]", "", entry.fields.get("organization", entry.fields.get("title", key)))
        elif len(names) <= 2 and "others" not in names:  # BibTeX's "and others" is "et al."
            who = " and ".join(names)
        else:
            who = f"{names[0]} et al."
        texts[key] = f"{who}, {entry.fields.get('year', 'n.d.')}"
    return texts


def on_the_page(cell) -> bool:
    """Whether the site shows the cell (a cell tagged REMOVED_TAG it leaves out)."""
    return REMOVED_TAG not in cell.get("metadata", {}).get("tags", [])


def page_text(path: Path) -> str:
    """The Markdown of a page (a MyST notebook) that the site shows: its Markdown cells less those it leaves out."""
    import jupytext

    cells = jupytext.reads(path.read_text(), fmt="md:myst").cells
    return "\n\n".join(cell.source for cell in cells if cell.cell_type == "markdown" and on_the_page(cell))


def heading_after(lines: list[str], i: int) -> str:
    """The title of the heading a label (line i) is set above; "" where a label stands above no heading."""
    heading = next((HEADING.match(after) for after in lines[i + 1:] if after.strip()), None)
    return heading.group(2) if heading else ""


def edition_of(root: Path, language: str) -> Edition:
    """The labels and citations of the edition whose _toc.yml is in `root`: the repository root (English) or book/zh
    (Chinese)."""
    import yaml

    edition = Edition(language, chapter_numbers(root))
    for name in page_names(root):
        if (root / f"{name}.md").is_file():
            edition.add_page(root / f"{name}.md")
    for bib in yaml.safe_load((root / "_config.yml").read_text()).get("bibtex_bibfiles", []):
        edition.citations.update(citations((root / bib).resolve()))
    return edition


# ---- the rewriting ----


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
        """NAMES in the edition's language."""
        return NAMES[self.edition.language]

    # ---- roles ----

    def role(self, name: str, content: str) -> str:
        """What the site shows for the role `{name}`content``."""
        explicit = EXPLICIT_TITLE.match(content)
        title, label = (explicit.group(1), explicit.group(2)) if explicit else (None, content)
        if name == "glue:text":
            key, _, spec = label.rpartition(":") if ":" in label else (label, "", "s")
            return glued_text(self.glued_value(key), spec or "s")
        if name == "glue:md":
            return self.inline(self.glued_markdown(label.split(":")[0]).strip())
        if name == "eq":
            return f"({self.edition.equation(label).number})"
        if name == "numref":
            target = self.edition.target(label)
            return title.replace("%s", target.number.split(" ")[-1]) if title else target.number
        if name in ("ref", "doc", "prf:ref"):
            return title or self.title_of(label.removesuffix(".md").split("/")[-1] if name == "doc" else label)
        if name in ("cite", "cite:p"):
            return "(" + "; ".join(self.edition.citation(key.strip()) for key in label.split(",")) + ")"
        if name == "cite:t":
            return "; ".join(self.edition.citation(key.strip()).replace(", ", " (", 1) + ")" for key in label.split(","))
        raise ValueError(f"{self.path.name}: the role {{{name}}} has no plain-Markdown form yet (classroom_markdown.py)")

    def inline(self, line: str) -> str:
        """The line with each of its roles rewritten."""
        return ROLE.sub(lambda m: self.role(m.group(1), m.group(2)), line)

    def title_of(self, label: str) -> str:
        """The title a reference to the label shows: a page's or a heading's title, "Exercise 6.1", "Theorem 6.1"."""
        text = self.edition.target(label).text
        if not text:
            raise UnresolvedReference(f"{self.path.name}: {label!r} is set above no heading: give the reference a title")
        return text

    def equation_tag(self, label: str) -> str:
        """`\\tag{6.3}`: a labelled equation's number, as the site gives it."""
        return rf"\tag{{{self.edition.equation(label).number}}}"

    def glued_value(self, name: str) -> str:
        """A glued value's text/plain (`{glue:text}`), noted in `used`."""
        if "text/plain" not in self.glued.get(name, {}):
            raise UnresolvedReference(f"{self.path.name}: no glued value {name!r}: run the chapter first")
        self.used[name] = self.glued[name]["text/plain"]
        return self.used[name]

    def glued_markdown(self, name: str) -> str:
        """A glued value's Markdown (`{glue:md}`; MyST in it is rewritten like the page's own), noted in `used_markdown`."""
        if "text/markdown" not in self.glued.get(name, {}):
            raise UnresolvedReference(f"{self.path.name}: no glued Markdown {name!r}: run the chapter first")
        self.used_markdown[name] = self.glued[name]["text/markdown"]
        return self.used_markdown[name]

    # ---- blocks ----

    def markdown(self, source: str) -> str:
        """The Markdown cell `source`, rewritten (its images in `attachments`)."""
        self.attachments = {}
        text = "\n".join(self.block(source.splitlines()))
        if self.edition.language == "zh":
            text = join_markdown_lines(text)
        return re.sub(r"\n{3,}", "\n\n", text).strip("\n")

    def block(self, lines: list[str]) -> list[str]:
        """The lines rewritten, construct by construct."""
        out: list[str] = []
        i = 0
        while i < len(lines):
            rewritten, i = self.construct_at(lines, i)
            out += rewritten
        return out

    def construct_at(self, lines: list[str], i: int) -> tuple[list[str], int]:
        """The rewriting of what starts at line i (a label, a directive, a fenced listing, a $$ block or a line of
        text), and the line after it."""
        if LABEL_LINE.match(lines[i]):
            return [], i + 1
        if OPENING.match(lines[i]):
            directive, end = Directive.at(lines, i)
            return [directive.indent + line if line else line for line in self.directive(directive)], end
        plain = PLAIN_FENCE.match(lines[i])
        if plain:
            end = closing_fence(lines, i + 1, plain.group(2)) + 1
            return lines[i:end], end
        found = display_math_at(lines, i)
        if found:
            math, end = found
            return self.display_math(math), end
        return [self.line(lines[i])], i + 1

    def line(self, line: str) -> str:
        """A line of text, its roles rewritten; the chapter's title numbered as the site numbers it ("# 6. RoPE in two
        dimensions")."""
        heading = HEADING.match(line)
        number = self.edition.chapters.get(self.path.stem)
        if heading and heading.group(1) == "#" and number:
            line = f"# {number}. {heading.group(2)}"
        return self.inline(line)

    def display_math(self, math: DisplayMath) -> list[str]:
        """A $$ block, on one line (so that a block quote's `>` cannot enter the TeX), with the site's number."""
        tex = " ".join(line.strip() for line in math.lines if line.strip())
        tag = f" {self.equation_tag(math.label)}" if math.label else ""
        return ["", f"{math.indent}$${tex}{tag}$$", ""]

    def directive(self, directive: Directive) -> list[str]:
        """What the site shows for a directive, as lines of Markdown."""
        name, argument, options, body = directive.name, directive.argument, directive.options, directive.body
        if name == "math":
            return self.display_math(DisplayMath(body, label=directive.label))
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
        return self.titled_block(directive)

    def titled_block(self, directive: Directive) -> list[str]:
        """An admonition (a dropdown folded), a `prf:` block, an exercise or a table: its title in bold over its text."""
        name, argument, inner, words = directive.name, directive.argument, self.block(directive.body), self.words
        label = directive.label
        if name == "admonition" and "dropdown" in directive.options.get("class", "").split():
            return ["", f"<details><summary>{self.inline(argument)}</summary>", "", *inner, "", "</details>", ""]
        if name in ADMONITIONS:
            return quoted([f"**{self.admonition_title(directive)}**", "", *inner])
        if name == "prf:proof":
            return quoted([f"**{words['proof']}.**", "", *inner, "", "∎"])
        if name == "exercise" or name.startswith("prf:"):
            word = name.split(":")[-1]
            title = self.edition.target(label).text if label else words.get(word, word.title())
            return quoted([f"**{title}**" + (f" ({self.inline(argument)})" if argument else ""), "", *inner])
        if name == "table":
            title = self.edition.target(label).number if label else words["table"]
            return ["", f"**{title}** {self.inline(argument)}".rstrip(), "", *inner, ""]
        raise ValueError(f"{self.path.name}: the directive {{{name}}} has no plain-Markdown form yet (classroom_markdown.py)")

    def admonition_title(self, directive: Directive) -> str:
        return self.inline(directive.argument or directive.name.title())

    def glued_figure(self, name: str, options: dict[str, str]) -> list[str]:
        """A glued figure as the image it is, attached to the cell (JupyterLab shows `attachment:` images)."""
        bundle = self.glued.get(name, {})
        for mime, extension in IMAGE_TYPES.items():
            if mime in bundle:
                self.attachments[f"{name}.{extension}"] = {mime: bundle[mime]}
                return [f"![{options.get('alt', name)}](attachment:{name}.{extension})"]
        raise UnresolvedReference(f"{self.path.name}: no glued figure {name!r}: run the chapter first")

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


def glued_text(value: str, spec: str) -> str:
    """A glued text/plain value as `{glue:text}` shows it with the format spec (myst-nb's own formatting)."""
    from myst_nb.core.variables import format_plain_text

    return format_plain_text(value, spec)


def quoted(lines: list[str]) -> list[str]:
    """A block quote of the lines (a nested one's `>` deepens)."""
    squeezed: list[str] = []
    for line in lines:
        if line.strip() or (squeezed and squeezed[-1].strip()):
            squeezed.append(line)
    while squeezed and not squeezed[-1].strip():
        squeezed.pop()
    return ["", *(f"> {line}".rstrip() for line in squeezed), ""]


# ---- the values an executed chapter glued ----


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


def built_glue(executed: Path) -> dict[str, dict[str, str]]:
    """The values a book build glued in a chapter, name → MIME bundle: myst-nb takes the hidden ones (`display=False`)
    out of the executed notebook it writes, and keeps them all beside it in <chapter>.glue.json."""
    import json

    path = executed.with_name(executed.stem + ".glue.json")
    if not path.is_file():
        return {}
    return {name: output["data"] for name, output in json.loads(path.read_text()).items()}
