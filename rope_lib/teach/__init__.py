"""The book's teaching helpers, one module a chapter, named as the chapter's page (`rope_2d` for book/rope_2d.md; a
package where a chapter is big: `rope_nd`, `llama_implementation`, `why_rope_works`, `trained_models`). A chapter's
module holds its worked examples in numpy, its derivation checked with sympy, its figures and interactive figures, and
its exercises' auto-checks. Needs the book's extra: `pip install 'rope_lib[book]'`.

A page imports its chapter's module and what it needs of `shared` (`from rope_lib.teach import rope_2d`,
`from rope_lib.teach.shared import symbolic`). Three layers, each importing only from those below it:

- `shared`: what several chapters share (the languages, the figures' style, the interactive figures' machinery, the
  exercise checks' machinery, sympy's helpers, source listings);
- the chapters' modules: a helper used by several chapters lives in the chapter that introduces it (the earliest in
  _toc.yml's order), and a later chapter imports it from there, never the other way round;
- `exercises`: the register of every chapter's exercise checks, from which the student editions import them.

Nothing is gathered here: each name is reached through its chapter's module.
"""

__all__: list[str] = []
