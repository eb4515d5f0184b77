"""What several chapters of the book share, imported by name (`from rope_lib.teach.shared import symbolic`):

- `language`: the book's two languages, and the one way a helper picks the words a reader sees;
- `figure_style`: the look every figure shares, and the description each carries;
- `interactive`: the interactive figures' machinery (a live form, a static form for the site, a print form);
- `checking`: what every exercise check shares (the registry of the checks is `rope_lib.teach.exercises`);
- `symbolic`, `displayed_equations`: sympy's helpers, and the checking of the equations a page displays;
- `source_listing`: another project's installed code, shown as it is;
- `difference_wording`: how the book words a largest difference between two results that should agree.

Nothing here imports a chapter's module: the chapters build on this package, never the other way round.
"""
