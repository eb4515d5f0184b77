"""What the tests of the Chinese edition's figures share: the words a figure draws, whether words are Chinese, and
drawing a figure while catching every glyph matplotlib could not find (the UserWarning of ordinary text and the log
message of mathtext, which has no font fallback)."""

import logging
import warnings

from matplotlib.text import Text

from rope_lib.teach.language import is_han


def has_chinese(words: str) -> bool:
    """Any Chinese character in `words`."""
    return any(is_han(c) for c in words)


def drawn_words(figure) -> list[str]:
    """Every piece of text the figure holds: titles, axis and tick labels, legend entries, annotations, colour bars."""
    return [t.get_text() for t in figure.findobj(Text) if t.get_text()]


class _Records(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def missing_glyphs(figure) -> list[str]:
    """Draw `figure` (a BookFigure, or anything with `to_png()`) and return what matplotlib said about missing glyphs."""
    handler = _Records()
    logger = logging.getLogger("matplotlib")
    logger.addHandler(handler)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            figure.to_png()
    finally:
        logger.removeHandler(handler)
    said = [str(w.message) for w in caught] + handler.messages
    return [message for message in said if "glyph" in message.lower()]
