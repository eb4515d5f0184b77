"""One notation in every page of both editions and in the figures rope_lib draws for them: the introduction's table
fixes it, and the symbols it retired stay out."""

import re

import pytest

from paths import ROOT

RETIRED = {
    r"\^\{?\*\}?": r"a conjugate is \overline{z}, not a star",
    r"\\bar\b": r"a conjugate is \overline{z}, not \bar",
    r"(?<![\\\w])R_\{?[qkg]\b": r"R is a rotation: a length is r (r_q, r_k, r_g)",
    r"\\Theta_|\\Theta\(": r"\Theta is the set of frequencies of R^d_{\Theta,m}: an angle function is \varphi",
    r"\\theta_\{?[qkjt]\}?(?![\w{])": r"\theta_i is the frequency of pair i: the pair index is i, and an angle is \varphi",
    r"\\omega": r"the frequencies are \theta_i (the sinusoidal encoding's too)",
    r"[xpqk]_\{?2[jt]\b": r"the pair index is i: coordinates 2i and 2i + 1",
    r"\\phi_i": r"an angle function is \varphi_i",
    r"B_\{m,": r"a distance is \Delta: B_{\Delta,\theta}",
    r"e\^\{-?i": r"the imaginary unit is upright: e^{\mathrm{i}…}",
    r"\\text\{[^}]*\\_": r"MathJax sets \_ inside \text{} with its backslash: a name with an underscore is \mathrm{freqs\_cis}",
}
"""Each retired form (a regular expression over the mathematics of a page) → what the notation table says instead."""

OTHERS_NOTATION = {
    "book/sinusoidal_encoding.md": [r"$\omega$"],
    "book/zh/sinusoidal_encoding.md": [r"$\omega$"],
    "book/why_rope_works.md": [r"$B_{m,\theta}$"],
    "book/zh/why_rope_works.md": [r"$B_{m,\theta}$"],
}
"""Where a page says once how a paper writes what the book writes otherwise (Vaswani et al.'s ω, Men et al.'s B_{m,θ}):
the retired form, quoted, not used."""

MATH = re.compile(r"\$\$.*?\$\$|```\{math\}.*?```|\$[^$\n]+\$", re.S)
"""Display maths ($$ … $$, a {math} block) and inline maths ($ … $): a page's or a figure label's mathematics; the
speaker notes' plain text ("multiply by e^{iθ}") is not typeset."""


def retired_forms(text: str) -> list[str]:
    maths = MATH.findall(text)
    return [f"{match.group(0)!r} ({advice})" for math in maths for pattern, advice in RETIRED.items() for match in re.finditer(pattern, math)]


def pages_and_figure_code() -> list:
    teach = sorted(path for path in (ROOT / "rope_lib" / "teach").rglob("*.py") if path.name != "__init__.py")
    return sorted((ROOT / "book").glob("*.md")) + sorted((ROOT / "book" / "zh").glob("*.md")) + teach


def test_every_retired_form_is_found_in_a_planted_line():
    planted = {
        r"f_q f_k^{*}": 1, r"q_i\bar k_i": 1, r"R_q(m) R_k(n) = R_g(m-n)": 3, r"\Theta_q(m)": 1, r"\theta_q + m\theta": 1,
        r"\theta_j = \text{base}^{-2j/D}": 1, r"\omega_t": 1, r"(x_{2j}, x_{2j+1})": 2, r"\phi_i(\mathbf{p})": 1, r"B_{m,\theta}": 1, r"e^{im\theta}": 1,
        r"\text{freqs\_cis}[m]": 1,
    }
    for line, count in planted.items():
        assert len(retired_forms(f"the page says ${line}$ here")) == count, line
        assert len(retired_forms(f"$$\n{line}\n$$ (label)")) == count, line
    kept = r"\mathrm{freqs\_cis} R(\alpha) R^d_{\Theta,m} \theta_i \theta \overline{z} \varphi_q(\mathbf{x}_m, m) e^{\mathrm{i}m\theta} B_{\Delta,\theta} \phi(\mathbf{q})"
    assert retired_forms(f"${kept}$") == []
    assert retired_forms("Say: multiply the query by e^{imθ}; the real part of u v*.") == []  # plain text, not typeset


@pytest.mark.parametrize("path", pages_and_figure_code(), ids=lambda path: str(path.relative_to(ROOT)))
def test_no_retired_symbol(path):
    text = path.read_text()
    for quoted in OTHERS_NOTATION.get(str(path.relative_to(ROOT)), []):
        assert text.count(quoted) == 1, f"{quoted} is quoted once, where the page names the paper that writes it"
        text = text.replace(quoted, "")
    found = retired_forms(text)
    assert not found, f"{path.relative_to(ROOT)} uses a retired symbol (the introduction's notation table): {found}"


RETIRED_NAMES = {"freqs": "inv_freq", "trained_len": "original_max_len", "past": "start_pos", "kv_heads": "n_kv_heads"}
"""Names CONTRIBUTING's "One name in the code" retired, as an argument of a function of rope_lib/ → the name instead."""

METAS_SIGNATURES = {"precompute_freqs_cis": {"dim", "theta"}}
"""The functions that keep Meta's argument names, to be read beside Meta's code."""


def test_the_library_uses_one_name_per_concept():
    import ast

    found = []
    for path in sorted((ROOT / "rope_lib").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                continue
            args = node.args
            names = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
            name = getattr(node, "name", "lambda")
            wrong = {n for n in names if n in RETIRED_NAMES}
            core = "teach" not in path.parts  # teach/'s two-dimensional chapters call their one pair's θ theta
            if core and "theta" in names and "theta" not in METAS_SIGNATURES.get(name, ()):
                wrong.add("theta")
            found += [f"{path.relative_to(ROOT)}:{node.lineno} {name}({n}): use {RETIRED_NAMES.get(n, 'base')}" for n in sorted(wrong)]
    assert not found, "\n".join(found)
