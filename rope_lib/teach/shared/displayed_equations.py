"""The equations a chapter displays, read from its MyST source and parsed by sympy's LaTeX parser,
so that what a reader sees on the page is what the chapter's sympy checks assert.

A chapter writes a labelled display as

    $$
    (a + \\mathrm{i}b)(c + \\mathrm{i}d) = (ac - bd) + \\mathrm{i}\\,(ad + bc),
    $$ (rope2d-step-complex-product)

`page_equations` finds every such block; `parse_sides` turns one into the sympy expressions of
its sides (a chain a = b = c has three); `assert_displayed` checks that each side equals the
expression the derivation checks. A wrong sign, a swapped index or a dropped factor in the
page's LaTeX then fails the check, and so the book build.

The parser (sympy's ANTLR grammar) reads standard LaTeX. Before parsing, the notation the book
uses is rewritten into what it reads: the imaginary unit \\mathrm{i} becomes sympy's I and e^{…}
the exponential; spacing (\\, \\! {}), sizing (\\big …), alignment (aligned, &, \\\\) and a
final full stop or comma are dropped; \\overline{z} is the conjugate; \\mathbf{x} is x; a
\\begin{pmatrix} … \\end{pmatrix} is a sympy Matrix, and matrices written side by side multiply.
Names the parser cannot read (f_q(\\mathbf{x}_m, m), ⟨f_q, f_k⟩) are given by the caller as
`names`: exact LaTeX → the sympy expression it stands for. Symbols are matched to the checked
expressions' symbols by name, ignoring braces and underscores (q_{1} is q1).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Mapping, Sequence

import sympy as sp
from sympy.parsing.latex import parse_latex

from .language import Words, require_language, text

DISPLAY = re.compile(r"^[ \t]*\$\$\n(?P<latex>.*?)\n[ \t]*\$\$ \((?P<label>[\w-]+)\)[ \t]*$", re.M | re.S)
"""A labelled display equation of a MyST page: $$ on its own line, the LaTeX, then `$$ (label)` (indented in a list item, say)."""

GREEK = (
    "alpha", "beta", "gamma", "delta", "epsilon", "varepsilon", "zeta", "eta", "theta", "vartheta", "iota", "kappa",
    "lambda", "mu", "nu", "xi", "pi", "rho", "sigma", "tau", "phi", "varphi", "chi", "psi", "omega",
    "Gamma", "Delta", "Theta", "Lambda", "Xi", "Pi", "Sigma", "Phi", "Psi", "Omega",
)  # fmt: skip

_DROPPED = [
    (re.compile(r"\\begin\{aligned\}|\\end\{aligned\}"), " "),
    (re.compile(r"\\(?:big|Big|bigg|Bigg)[lr]?(?![a-zA-Z])"), ""),
    (re.compile(r"\\[,!;:]|\\q?quad(?![a-zA-Z])|~"), " "),
    (re.compile(r"\{\}"), ""),
    (re.compile(r"\\mathbf\{(\w)\}"), r" \1"),  # a space, so \\lVert\\mathbf{x} does not become \\lVertx
    (re.compile(r"\\mathrm\{i\}"), r" \\iota "),
    (re.compile(r"[.,;]\s*$"), ""),
]
_NAMED = "Xi_{%d}"
"""The symbol a named piece of LaTeX becomes before parsing (written \\Xi_{k}; the book never uses Ξ)."""
_MATRIX = "Upsilon_{%d}"
"""The symbol a pmatrix becomes before parsing (written \\Upsilon_{k}; the book never uses Υ)."""


def page_equations(path) -> dict[str, str]:
    """Label → LaTeX of every labelled display equation of the MyST page at `path`, in page order."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"path must name a chapter's .md source, got {str(path)!r}, which does not exist")
    return {m["label"]: m["latex"].strip() for m in DISPLAY.finditer(path.read_text())}


def _split_top_level(latex: str, separator: str) -> list[str]:
    """Split at `separator` where it stands outside every brace, bracket and parenthesis."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(latex):
        if ch in "{([":
            depth += 1
        elif ch in "})]":
            depth -= 1
        elif depth == 0 and latex.startswith(separator, i):
            parts.append(latex[start:i])
            start = i + len(separator)
    return parts + [latex[start:]]


def _unit_products(latex: str) -> str:
    """A Greek letter before a parenthesis is a product, not a call: \\iota (a + b) → \\iota \\cdot (a + b)."""
    return re.sub(r"\\(%s)(?![a-zA-Z])\s*\(" % "|".join(GREEK), r"\\\1 \\cdot (", latex)


_PMATRIX = re.compile(r"(\\begin\{pmatrix\}.*?\\end\{pmatrix\})", re.S)


def _normalise(latex: str) -> str:
    for pattern, replacement in _DROPPED:
        latex = pattern.sub(replacement, latex)
    pieces = _PMATRIX.split(latex)  # alignment marks & and \\ go, but not inside a matrix
    latex = "".join(piece if i % 2 else re.sub(r"&|\\\\", " ", piece) for i, piece in enumerate(pieces))
    return re.sub(r"\s+", " ", _unit_products(latex)).strip()


def _symbol_key(name: str) -> str:
    return re.sub(r"[{}_\\ ]", "", name)


def _parse_one(latex: str, symbols: Mapping[str, sp.Symbol], named: Mapping[sp.Symbol, object], *, shown: bool = False):
    """One side, without `=`, as a sympy expression or Matrix. shown=True: the form to show a reader instead,
    with named pieces kept as their LaTeX and matrices side by side kept as an unevaluated product."""
    matrices = []

    def stash(match):
        rows = [_split_top_level(row, "&") for row in re.split(r"\\\\", match["body"].strip())]
        matrices.append(sp.Matrix([[_parse_one(cell, symbols, named, shown=shown) for cell in row] for row in rows]))
        return " \\" + _MATRIX % len(matrices) + " "

    latex = re.sub(r"\\begin\{pmatrix\}(?P<body>.*?)\\end\{pmatrix\}", stash, latex, flags=re.S)
    try:
        expr = parse_latex(latex.replace("\\\\", " "))
    except Exception as error:  # the parser raises its own LaTeXParsingError and, on odd input, others
        raise ValueError(f"sympy's LaTeX parser cannot read {latex!r}: {error}") from error
    replacements = {}
    if not shown:  # shown: the parse as it is (placeholders printed as the page's LaTeX), so nothing evaluates further
        replacements = {sp.Symbol("iota"): sp.I, sp.Symbol("e"): sp.E}
        for s in expr.free_symbols:
            if s in named:
                replacements[s] = named[s][1]
            elif _symbol_key(s.name) in symbols:
                replacements[s] = symbols[_symbol_key(s.name)]
    if not matrices:
        return expr.subs(replacements, simultaneous=True)
    return _with_matrices(expr, [sp.Symbol(_MATRIX % (i + 1)) for i in range(len(matrices))], matrices, replacements, shown)


def _with_matrices(expr, placeholders, matrices, replacements, shown: bool):
    """Matrices side by side multiply, in the order written (sympy keeps Upsilon_{1}, Upsilon_{2}, … sorted)."""
    factors = expr.args if isinstance(expr, sp.Mul) else (expr,)
    product, scalar = [], sp.Integer(1)
    for factor in factors:
        if factor in placeholders:
            product.append(matrices[placeholders.index(factor)])
        elif factor.free_symbols & set(placeholders):
            raise ValueError(f"only products of matrices and scalars are read, got {expr}")
        else:
            scalar *= factor.subs(replacements, simultaneous=True)
    if shown:
        return sp.MatMul(*([scalar] if scalar != 1 else []), *map(sp.ImmutableMatrix, product), evaluate=False)
    result = product[0]
    for matrix in product[1:]:
        result = result * matrix
    return scalar * result


def parse_sides(latex: str, *, symbols: Sequence[sp.Symbol] = (), names: Mapping[str, object] | None = None, shown: bool = False) -> list:
    """The sides of the displayed equation (or chain a = b = c) `latex`, as sympy expressions or Matrices.

    symbols: the checked expressions' symbols; a parsed symbol of the same name (braces and
    underscores aside) becomes that symbol, with its assumptions (real, say).
    names: exact pieces of LaTeX → the expression each one stands for.
    shown: return the sides as a reader should see them, named pieces as written and matrix products unevaluated.
    """
    if not isinstance(latex, str) or not latex.strip():
        raise ValueError(f"latex must be a non-empty string of LaTeX, got {latex!r}")
    latex, named = _normalise(latex), {}
    pieces = {_normalise(piece): value for piece, value in (names or {}).items()}  # matched as the parser will see them
    for piece in pieces:
        if piece not in latex:
            raise ValueError(f"names has {piece!r}, which the equation {latex!r} does not contain")
    for i, piece in enumerate(sorted(pieces, key=len, reverse=True), start=1):  # the longest piece first
        latex = latex.replace(piece, " \\" + _NAMED % i + " ")
        named[sp.Symbol(_NAMED % i)] = (piece, pieces[piece])
    by_name = {_symbol_key(s.name): s for s in symbols}
    return [_parse_one(side, by_name, named, shown=shown) for side in _split_top_level(latex, "=")]


SPOT_VALUES = (0.37, -1.19, 0.83, 1.71, -0.52, 0.29, 1.06, -0.88, 0.61, -1.43)
"""Values put in for the symbols of a difference before sympy tries to simplify it: a clearly non-zero
number there shows at once that two sides differ (a proof of equality still needs the simplification)."""


def _differs_at_a_point(difference) -> bool:
    symbols = sorted(difference.free_symbols, key=str)
    point = {s: SPOT_VALUES[i % len(SPOT_VALUES)] + 0.01 * (i // len(SPOT_VALUES)) for i, s in enumerate(symbols)}
    try:
        value = complex(difference.subs(point).evalf())
    except (TypeError, ValueError):  # a sum with a symbolic bound, say: no number to compare
        return False
    return abs(value) > 1e-9 * (1 + abs(complex(sp.Abs(difference).subs(point).evalf())))


def _same(a, b) -> bool:
    """a and b are the same expression, or Matrix, up to algebra and trigonometry over the reals."""
    a = a if isinstance(a, sp.MatrixBase) else sp.Matrix([a])
    b = b if isinstance(b, sp.MatrixBase) else sp.Matrix([b])
    if a.shape != b.shape:
        return False
    for x, y in zip(a, b):
        if _differs_at_a_point(sp.sympify(x).doit() - sp.sympify(y).doit()):
            return False
        difference = sp.expand_complex(sp.expand(sp.sympify(x).doit() - sp.sympify(y).doit()))  # sums and integrals done first
        if sp.simplify(sp.expand_trig(difference)) != 0:
            return False
    return True


def assert_displayed(latex: str, sides: Sequence, *, what: str, names: Mapping[str, object] | None = None) -> list:
    """Raise AssertionError naming `what` unless the displayed `latex` has as many sides as `sides` and each
    parsed side equals the expression given for it. Returns the parsed sides."""
    symbols = set()
    for side in sides:
        symbols |= side.free_symbols
    for value in (names or {}).values():
        symbols |= getattr(value, "free_symbols", set())
    parsed = parse_sides(latex, symbols=sorted(symbols, key=str), names=names)
    if len(parsed) != len(sides):
        raise AssertionError(f"{what}: the page shows {len(parsed)} sides, the check has {len(sides)}: {latex!r}")
    for i, (shown, checked) in enumerate(zip(parsed, sides), start=1):
        if not _same(shown, checked):
            raise AssertionError(f"{what}: side {i} on the page, {shown}, is not the checked {checked}")
    return parsed


RULE_FORBIDS = "{}\\$^"
"""Characters a rule may not hold: it is set as plain text, where LaTeX's groups and commands would show as typed."""


class Check:
    """One displayed equation as a derivation checks it.

    sides: its sides in the page's order, as sympy expressions or Matrices; each must equal the next.
    rule: what turns each side into the next, in words ("multiply out and use i² = −1"), in both languages (Words);
    shown with the check in the page's language.
    names: pieces of LaTeX the parser cannot read → the expression each stands for (see `parse_sides`).
    """

    def __init__(self, *sides, rule: Words, names: Mapping[str, object] | None = None):
        if len(sides) < 2:
            raise ValueError(f"sides must be at least two expressions (an equation), got {len(sides)}")
        if not isinstance(rule, Words) or not rule.en.strip() or not rule.zh.strip():
            raise ValueError(f"rule must say in words, in English and Chinese (Words), how each side follows from the one before, got {rule!r}")
        if found := set(rule.en + rule.zh) & set(RULE_FORBIDS):
            raise ValueError(f"rule is shown as plain text, so it must not use LaTeX's {''.join(sorted(found))}: write exp(iθ), not e^{{iθ}}; got {rule!r}")
        self.sides, self.rule, self.names = tuple(sides), rule, dict(names or {})


class CheckedEquation:
    """What a chapter cell shows under a displayed equation: its first side as sympy read it off the page,
    sympy's own working of that side, the page's other sides, and the rule that links them."""

    def __init__(self, label: str, shown: list, worked, rule: str, names: Mapping[str, str]):
        self.label, self.shown, self.worked, self.rule, self.names = label, shown, worked, rule, names

    def _latex(self, expr) -> str:
        spelled = {"iota": "i", "e": "e", **self.names}
        names = {s: spelled.get(s.name, _greek(s.name)) for s in getattr(expr, "free_symbols", set())}
        return sp.latex(expr, symbol_names={s: name for s, name in names.items() if name is not None})

    def _aligned(self) -> str:
        """The sides one under the other (narrow enough for a phone), the line marked (sympy) being sympy's own
        working of the first; then the rule, in words: the body of a display, without its $$."""
        worked, rest = self._latex(self.worked), [self._latex(side) for side in self.shown[1:]]
        lines = [self._latex(self.shown[0])]
        if len(worked) <= WORKED_LATEX_CHARS and worked not in rest:  # no line twice
            lines.append(rf"{worked} \quad \text{{(sympy)}}")
        lines += rest
        body = r" \\ &= ".join(lines)
        return rf"\begin{{aligned}} &{body} \\ &\text{{{_latex_text(self.rule)}}} \end{{aligned}}"

    def _repr_latex_(self) -> str:
        return f"$${self._aligned()}$$"

    def __repr__(self) -> str:
        return f"{self.label}: " + " = ".join(map(str, [self.shown[0], self.worked, *self.shown[1:]])) + f"   ({self.rule})"


def _latex_text(words: str) -> str:
    """Words for \\text{…}: the characters LaTeX treats specially (a rule holds none of RULE_FORBIDS) escaped. An
    underscore leaves the text for math mode (`}\\_\\text{`), which both MathJax and LaTeX read as "_": LaTeX refuses
    a bare "_" inside \\text{…}, and MathJax prints an escaped one there as it stands."""
    return re.sub(r"([#%&])", r"\\\1", words).replace("_", r"}\_\text{")


WORKED_LATEX_CHARS = 160
"""sympy's working of a side is shown when its LaTeX is at most this long: longer would not fit a phone's width."""


def _greek(name: str) -> str | None:
    """A parsed symbol's LaTeX where sympy's own would be wrong: varphi_{q} → \\varphi_{q}; None for the others."""
    base = name.split("_", 1)[0]
    return "\\" + name if base in GREEK and "_{" in name else None


def _worked(expr):
    """sympy's own working of a side: sums done, products multiplied out, real and imaginary parts apart."""
    if isinstance(expr, sp.MatrixBase):
        return expr.applyfunc(_worked)
    return sp.expand_complex(sp.expand(sp.expand_trig(sp.sympify(expr).doit())))


class Page:
    """The labelled display equations of one chapter, each either checked or declared unchecked with a reason.

    checks: label → a function returning the `Check` of that equation.
    unchecked: label → why it is not checked (a definition, a statement proved elsewhere, …).
    Building the Page fails if an equation is in neither, or a label is not displayed, so that the
    count the chapter prints is the true one. lang: the page's language, in which the rules and the reasons (Words)
    are shown; `unchecked` holds the reasons in that language.
    confirmations: name → a function returning a `Check` of a step the page does not display (a long expansion the
    page replaces by a shorter argument): sympy checks that each side equals the next, and `report` shows it.
    """

    def __init__(self, path, checks: Mapping[str, object], *, unchecked: Mapping[str, Words] | None = None, lang: str = "en",
                 confirmations: Mapping[str, object] | None = None):
        self.path, self.lang = Path(path), require_language(lang)
        self.confirmations = dict(confirmations or {})
        if wrong := [name for name, make in self.confirmations.items() if not callable(make)]:
            raise ValueError(f"confirmations must map each name to a function returning a Check; not for {wrong}")
        self.equations = page_equations(self.path)
        if wrong := [label for label, why in (unchecked or {}).items() if not isinstance(why, Words)]:
            raise ValueError(f"unchecked must give each reason in both languages (Words); not for {wrong}")
        self.checks = dict(checks)
        self.unchecked = {label: why.in_language(lang) for label, why in (unchecked or {}).items()}
        declared = set(self.checks) | set(self.unchecked)
        if set(self.checks) & set(self.unchecked):
            raise ValueError(f"labels both checked and unchecked: {sorted(set(self.checks) & set(self.unchecked))}")
        if missing := [label for label in self.equations if label not in declared]:
            raise ValueError(f"{self.path.name} displays equations neither checked nor declared unchecked: {missing}")
        if absent := sorted(declared - set(self.equations)):
            raise ValueError(f"{self.path.name} does not display the labelled equations {absent}")
        self.checked: list[str] = []

    @classmethod
    def of(cls, derivation, *, lang: str = "en") -> "Page":
        """The Page of a chapter's derivation: the chapter's module (rope_lib.teach.rope_2d), or the derivation module
        of a chapter that is a package (rope_lib.teach.rope_nd.derivation). It holds CHAPTER (the page's file name,
        read from the folder the chapter runs in, so the Chinese edition reads its own page), CHECKS, UNCHECKED and,
        where it has them, CONFIRMATIONS."""
        missing = [name for name in ("CHAPTER", "CHECKS", "UNCHECKED") if not hasattr(derivation, name)]
        if missing:
            raise ValueError(f"derivation must be a chapter's derivation with CHAPTER, CHECKS and UNCHECKED; "
                             f"{getattr(derivation, '__name__', derivation)!r} lacks {missing}")
        return cls(derivation.CHAPTER, derivation.CHECKS, unchecked=derivation.UNCHECKED, lang=lang,
                   confirmations=getattr(derivation, "CONFIRMATIONS", None))

    def check(self, label: str) -> CheckedEquation:
        """Assert that the sides of equation `label` are equal (the step holds) and that the page shows
        exactly those sides (what the reader sees is what was checked). Raises AssertionError naming the label."""
        if label not in self.checks:
            raise KeyError(f"label must be one of the checked equations of {self.path.name}, {sorted(self.checks)}; got {label!r}")
        step = self.checks[label]()
        for i, (before, after) in enumerate(zip(step.sides, step.sides[1:]), start=1):
            if not _same(before, after):
                raise AssertionError(f"{label}: side {i + 1} does not follow from side {i} ({step.rule.en}): {before} ≠ {after}")
        try:
            assert_displayed(self.equations[label], step.sides, what=label, names=step.names)
        except ValueError as error:  # the page no longer holds a named piece, or no longer parses: a wrong page too
            raise AssertionError(f"{label}: {error}") from error
        if label not in self.checked:
            self.checked.append(label)
        shown = parse_sides(self.equations[label], names=step.names, shown=True)
        pieces = sorted(map(_normalise, step.names), key=len, reverse=True)  # numbered as parse_sides numbers them
        names = {_NAMED % i: piece for i, piece in enumerate(pieces, start=1)}
        return CheckedEquation(label, shown, _worked(step.sides[0]), step.rule.in_language(self.lang), names)

    def check_all(self) -> list[CheckedEquation]:
        """Every checked equation of the page, in page order."""
        return [self.check(label) for label in self.equations if label in self.checks]

    def summary(self) -> str:
        """How many displayed equations are checked as displayed, and which are not and why."""
        others = text(self.lang, en="; ", zh="；").join(f"{label} ({why})" for label, why in self.unchecked.items())
        checked, shown = len(self.checks), len(self.equations)
        said = text(self.lang, en=f"{checked} of the {shown} displayed equations of {self.path.name} are checked as displayed",
                    zh=f"{self.path.name} 所展示的 {shown} 个公式中，有 {checked} 个按页面上的写法检验过")
        return said + (text(self.lang, en=f"; not checked: {others}", zh=f"；未检验：{others}") if others else "")

    def confirm(self, name: str) -> "Confirmed":
        """Assert that each side of the undisplayed step `name` equals the next. Raises AssertionError naming it."""
        if name not in self.confirmations:
            raise KeyError(f"name must be one of the confirmations of {self.path.name}, {sorted(self.confirmations)}; got {name!r}")
        step = self.confirmations[name]()
        if not isinstance(step, Check):
            raise TypeError(f"confirmation {name!r} must return a Check, got {type(step).__name__}")
        for i, (before, after) in enumerate(zip(step.sides, step.sides[1:]), start=1):
            if not _same(before, after):
                raise AssertionError(f"{name}: side {i + 1} does not follow from side {i} ({step.rule.en}): {before} ≠ {after}")
        return Confirmed(name, step.sides, step.rule.in_language(self.lang))

    def report(self) -> "Report":
        """Every check of the page run (check_all, then every confirmation), for the chapter's one collapsed block
        "How this page is checked": what the checking does, each checked equation as sympy read it off the page, each
        confirmed step, and the counts. A wrong sign on the page raises here, so the build fails."""
        checked = self.check_all()
        if sorted(self.checked) != sorted(self.checks):
            raise AssertionError(f"{self.path.name}: checks not run: {sorted(set(self.checks) - set(self.checked))}")
        confirmed = [self.confirm(name) for name in self.confirmations]
        return Report(self.lang, checked, confirmed, dict(self.unchecked), len(self.equations), self.path.stem)


class Confirmed:
    """A step sympy confirmed that the page does not display: its sides, as sympy writes them, and the rule."""

    def __init__(self, name: str, sides, rule: str):
        self.name, self.sides, self.rule = name, tuple(sides), rule

    def _aligned(self) -> str:
        body = r" \\ &= ".join(sp.latex(side) for side in self.sides)
        return rf"\begin{{aligned}} &{body} \\ &\text{{{_latex_text(self.rule)}}} \end{{aligned}}"

    def __repr__(self) -> str:
        return f"{self.name}: " + " = ".join(map(str, self.sides)) + f"   ({self.rule})"


class Report:
    """What `Page.report` returns: MyST Markdown (text/markdown) for a chapter to glue into its collapsed block
    "How this page is checked" with ```{glue:md} key``` and `:format: myst`, the same on the site and in the PDF
    (display math, and {eq} references to the page's equations); plain text otherwise."""

    def __init__(self, lang: str, checked: list[CheckedEquation], confirmed: list[Confirmed], unchecked: Mapping[str, str], displayed: int,
                 chapter: str):
        self.lang, self.checked, self.confirmed, self.unchecked, self.displayed = lang, checked, confirmed, unchecked, displayed
        self.chapter = chapter  # the page's file name without .md: the name of the chapter's module in rope_lib.teach

    def explanation(self) -> str:
        return text(
            self.lang,
            en="sympy's LaTeX parser reads each labelled equation from this page's source, and sympy checks that every "
               f"side equals the next and that each side is the expression the chapter's derivation (in "
               f"`rope_lib.teach.{self.chapter}`) says it is. A wrong sign or a swapped index on the page stops the book from "
               "building. Below, each checked equation as sympy read it, its line marked (sympy) being sympy's own working, "
               "and the rule that links its sides.",
            zh="sympy 的 LaTeX 解析器从本页源文件中读出每个带编号的公式，sympy 再检验每一边都等于下一边，并且每一边都是本章推导"
               f"（在 `rope_lib.teach.{self.chapter}` 中）所给出的表达式。页面上若有一个符号写错或下标写反，本书就无法构建。"
               "下面列出每个检验过的公式被 sympy 读出的样子（标有 (sympy) 的一行是 sympy 自己的演算），以及连接各边的规则。",
        )

    def counts(self) -> str:
        checked, shown = len(self.checked), self.displayed
        said = text(self.lang, en=f"{checked} of the {shown} displayed equations are checked as displayed",
                    zh=f"本页展示的 {shown} 个公式中，有 {checked} 个按页面上的写法检验过")
        if self.unchecked:
            others = len(self.unchecked)
            said += text(self.lang, en=f"; the other {others} {'is' if others == 1 else 'are'} named below for what "
                                       f"{'it is' if others == 1 else 'they are'}",
                         zh=f"；其余 {others} 个在下面注明是哪一类式子")
        if self.confirmed:
            steps = len(self.confirmed)
            said += text(self.lang, en=f", and sympy confirms {steps} further {'step' if steps == 1 else 'steps'} that the "
                                       "page does not display",
                         zh=f"；另有 {steps} 步页面上没有展示，也由 sympy 验证")
        return said + text(self.lang, en=".", zh="。")

    def _repr_markdown_(self) -> str:
        blocks = [self.explanation(), f"**{self.counts()}**"]
        for shown in self.checked:
            blocks.append(f"{{eq}}`{shown.label}`\n\n$$\n{shown._aligned()}\n$$")
        if self.confirmed:
            blocks.append(text(self.lang, en="Steps confirmed but not displayed:", zh="验证过但页面上没有展示的步骤："))
            blocks += [f"$$\n{step._aligned()}\n$$" for step in self.confirmed]
        if self.unchecked:
            blocks.append(text(self.lang, en="Not checked:", zh="未检验：") + "\n\n" + "\n".join(
                f"- {{eq}}`{label}`{text(self.lang, en=': ', zh='：')}{why}" for label, why in self.unchecked.items()))
        return "\n\n".join(blocks) + "\n"

    def __repr__(self) -> str:
        lines = [self.counts(), *map(repr, self.checked), *map(repr, self.confirmed)]
        lines += [text(self.lang, en=f"not checked: {label} ({why})", zh=f"未检验：{label} ({why})") for label, why in self.unchecked.items()]
        return "\n".join(lines)
