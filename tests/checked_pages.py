"""The text a deriving chapter holds for its collapsed block "How this page is checked", as the derivation tests expect it."""


def derivation_name(module) -> str:
    """How a page names its chapter's derivation: the chapter's module (`rope_2d`), or the derivation module of a chapter
    that is a package (`rope_nd.derivation`)."""
    return module.__name__.removeprefix("rope_lib.teach.")


def report_cell(module, glue: str) -> str:
    """The removed cell that builds the chapter's `Page` from its derivation and glues its report."""
    return (f"```{{code-cell}} ipython3\n:tags: [remove-cell]\nfrom rope_lib.teach.shared import displayed_equations\n"
            f'glue("{glue}", displayed_equations.Page.of({derivation_name(module)}, lang=LANG).report(), display=False)\n```')


def report_block(book: str, glue: str) -> str:
    """The collapsed admonition that shows the glued report, titled in the edition's language."""
    title = "How this page is checked" if book == "book" else "本页如何检验"
    return f":::{{admonition}} {title}\n:class: dropdown\n```{{glue:md}} {glue}\n:format: myst\n```\n:::"
