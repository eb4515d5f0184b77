"""What the tests of the Chinese edition's figures share: the words a figure draws, whether words are Chinese,
drawing a figure while catching every glyph matplotlib could not find (the UserWarning of ordinary text and the log
message of mathtext, which has no font fallback), and the checks every figure of each language passes."""

import logging
import warnings

from matplotlib.text import Text

from rope_lib.teach.shared.language import is_han


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


def assert_chinese_figure(figure) -> None:
    """A figure of the Chinese edition: its alt text and some of the words it draws are Chinese, no string puts
    Chinese inside mathtext's $…$ (which has no font for it), and every glyph is drawn."""
    words = drawn_words(figure)
    assert has_chinese(figure.alt_text), figure.alt_text
    assert any(has_chinese(w) for w in words), words
    assert not [w for w in [figure.alt_text, *words] if "$" in w and has_chinese(w)]
    assert missing_glyphs(figure) == []


def assert_english_figure(figure) -> None:
    """A figure of the English edition: no Chinese in its alt text or in the words it draws, and every glyph drawn."""
    found = [w for w in [figure.alt_text, *drawn_words(figure)] if has_chinese(w)]
    assert not found, found
    assert missing_glyphs(figure) == []
