"""Pure functions that return matplotlib Figures: every figure in the book is drawn here.

One module per topic; each function builds its figure with `style.new_figure`,
so it carries a description (`fig.alt_text`) written from the same numbers.
"""

from .frequencies import plot_wavelengths
from .scores import plot_score_grid
from .style import BookFigure, new_figure, series_style
