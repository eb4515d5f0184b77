"""Drawing a figure and catching every glyph matplotlib could not find: the UserWarning of ordinary text and the
log message of mathtext, which has no font fallback."""

import logging
import warnings


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
