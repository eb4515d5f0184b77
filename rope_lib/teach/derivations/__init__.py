"""The derivations of the book's chapters, one module a chapter, each a table of its displayed equations.

Each module holds `CHAPTER` (the chapter's file name in book/), `CHECKS` (label → a function returning
the `displayed_equations.Check` of that equation) and `UNCHECKED` (label → why it is not checked). The
chapter builds `displayed_equations.Page(CHAPTER, CHECKS, unchecked=UNCHECKED)` and calls `page.check(label)`
under each equation; tests/test_derivations.py checks every page and plants wrong signs in each.
"""
