"""The text a deriving chapter holds for its collapsed block "How this page is checked", as the derivation tests expect it."""


def report_cell(name: str, glue: str) -> str:
    """The removed cell that builds the chapter's `Page` from its derivation module and glues its report."""
    return (f"```{{code-cell}} ipython3\n:tags: [remove-cell]\nfrom rope_lib.teach import displayed_equations\n"
            f"from rope_lib.teach.derivations import {name} as derivation\n"
            f'glue("{glue}", displayed_equations.Page.of(derivation, lang=LANG).report(), display=False)\n```')


def report_block(book: str, glue: str) -> str:
    """The collapsed admonition that shows the glued report, titled in the edition's language."""
    title = "How this page is checked" if book == "book" else "本页如何检验"
    return f":::{{admonition}} {title}\n:class: dropdown\n```{{glue:md}} {glue}\n:format: myst\n```\n:::"
