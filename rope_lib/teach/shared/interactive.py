"""Interactive figures: one description, two forms.

An `InteractiveFigure` pairs a drawing function of a chapter's module with
the controls that feed it. Every control lists the values it can take, so the
same description yields

* the live form (`live()`): ipywidgets sliders whose changes the kernel redraws;
* the static form (`static_html()`): one pre-rendered frame for every
  combination of control values, and range inputs that pick among them with
  the site's `interactive_figures.js`, with no kernel and no network.

Shown as the last value of a cell, it offers both: Jupyter renders the live
widget, and the website (which ranks the widget view below HTML) the static
form. The PDF book, which can move no slider, shows the print form
(`print_png()`): the default frame captioned with the control values it was
drawn at and its description. Each interactive figure is built in the module
of the chapter that shows it (`rope_lib.teach.rope_2d.rope_2d_widget`).
"""

from __future__ import annotations

import base64
import html
import io
import itertools
import json
import textwrap
from dataclasses import dataclass, field
from typing import Any, Callable

from PIL import Image

from .figure_style import BookFigure, png_data_url
from .language import require_language, text

MAX_FRAMES = 96
"""The most frames one static figure may pre-render: it keeps a page under 2 MB."""

FRAME_DPI = 80
FRAME_COLOURS = 96
"""Static frames are drawn at 80 dpi and stored as palette PNGs of 96 colours: about a third of the bytes."""

PRINT_DPI = 200
PRINT_CAPTION_WIDTH = 110
"""The print form is drawn at 200 dpi, sharp on paper, its caption wrapped at 110 characters."""

QUANTITY_STOPS = 8
"""The fewest values a slider over a quantity (an angle, a position, a distance, a base) offers."""

_figure_ids = itertools.count()
"""Numbers the static figures of one kernel session, so their element ids never collide on a page."""


def frame_png(figure: BookFigure) -> bytes:
    """The figure as a small palette PNG, for a frame of the static form."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=FRAME_DPI, bbox_inches="tight")
    image = Image.open(io.BytesIO(buffer.getvalue())).convert("RGB")
    out = io.BytesIO()
    image.quantize(colors=FRAME_COLOURS, method=Image.Quantize.MEDIANCUT).save(out, format="PNG", optimize=True)
    return out.getvalue()


def script_safe_json(value) -> str:
    """JSON that cannot close the <script> element holding it."""
    return json.dumps(value).replace("</", "<\\/")


@dataclass(frozen=True)
class Control:
    """One slider: the keyword `name` of the draw function, a label, and the values it can take.

    `choice` marks a pick among a few settings (a head dimension, a variant, a layer) rather than a quantity that varies
    continuously: a slider over a quantity offers at least `QUANTITY_STOPS` values, so that a move shows as a change."""

    name: str
    label: str
    values: tuple
    value: Any
    fmt: Callable[[Any], str] = field(default=str)
    choice: bool = False

    def __post_init__(self):
        if len(self.values) < 2:
            raise ValueError(f"control {self.name!r} must offer at least two values, got {self.values!r}")
        if self.value not in self.values:
            raise ValueError(f"control {self.name!r}: value {self.value!r} must be one of its values {self.values!r}")


@dataclass(frozen=True)
class InteractiveFigure:
    """draw(**{control.name: value}) → BookFigure, with the controls that choose its arguments; `lang` is the
    language of the words it adds itself (the print form's caption)."""

    draw: Callable[..., BookFigure]
    controls: tuple[Control, ...]
    lang: str = "en"

    def __post_init__(self):
        require_language(self.lang)

    def defaults(self) -> dict:
        return {c.name: c.value for c in self.controls}

    def figure(self, **values) -> BookFigure:
        """The figure for the given control values (the defaults for those not given)."""
        unknown = set(values) - {c.name for c in self.controls}
        if unknown:
            raise ValueError(f"unknown controls {sorted(unknown)}; expected some of {[c.name for c in self.controls]}")
        for c in self.controls:
            if c.name in values and values[c.name] not in c.values:
                raise ValueError(f"control {c.name!r} must take one of {c.values!r}, got {values[c.name]!r}")
        return self.draw(**{**self.defaults(), **values})

    def live(self):
        """Sliders and the figure they drive, redrawn by the kernel on every change (Jupyter only)."""
        import ipywidgets

        sliders = {
            c.name: ipywidgets.SelectionSlider(
                options=[(c.fmt(v), v) for v in c.values],
                value=c.value,
                description=c.label,
                style={"description_width": "initial"},
                layout=ipywidgets.Layout(width="95%"),
            )
            for c in self.controls
        }
        output = ipywidgets.Output()

        def redraw(_change=None):
            figure = self.figure(**{name: slider.value for name, slider in sliders.items()})
            png = base64.b64encode(figure.to_png()).decode("ascii")
            output.outputs = ({"output_type": "display_data", "data": {"image/png": png, "text/plain": figure.alt_text}, "metadata": {}},)

        for slider in sliders.values():
            slider.observe(redraw, names="value")
        redraw()
        return ipywidgets.VBox([*sliders.values(), output])

    def frames(self) -> dict[str, BookFigure]:
        """Every combination of control values, keyed "i,j,…" by the values' indices."""
        combinations = list(itertools.product(*(range(len(c.values)) for c in self.controls)))
        if len(combinations) > MAX_FRAMES:
            counts = " × ".join(str(len(c.values)) for c in self.controls)
            raise ValueError(f"the controls offer {counts} = {len(combinations)} combinations, more than MAX_FRAMES={MAX_FRAMES}")
        return {
            ",".join(map(str, index)): self.figure(**{c.name: c.values[i] for c, i in zip(self.controls, index)})
            for index in combinations
        }

    def static_html(self) -> str:
        """The kernel-free form: an image, one labelled range input per control, and every frame inline."""
        number = next(_figure_ids)
        frames = {key: {"src": png_data_url(frame_png(fig)), "alt": fig.alt_text} for key, fig in self.frames().items()}
        first = ",".join(str(c.values.index(c.value)) for c in self.controls)
        rows = []
        for j, c in enumerate(self.controls):
            control_id = f"rope-interactive-{number}-{j}"
            labels = [c.fmt(v) for v in c.values]
            current = labels[c.values.index(c.value)]
            rows.append(
                f'<div class="rope-control-row"><label for="{control_id}">{html.escape(c.label)}</label>'
                f'<input type="range" class="rope-control" id="{control_id}" min="0" max="{len(c.values) - 1}" step="1" '
                f'value="{c.values.index(c.value)}" aria-valuetext="{html.escape(current)}" '
                f"data-labels='{html.escape(json.dumps(labels), quote=True)}'>"
                f'<output for="{control_id}" aria-live="polite">{html.escape(current)}</output></div>'
            )
        return (
            f'<div class="rope-interactive" id="rope-interactive-{number}">'
            f'<img class="rope-frame" src="{frames[first]["src"]}" alt="{html.escape(frames[first]["alt"], quote=True)}">'
            + "".join(rows)
            + f'<script type="application/json" class="rope-frames">{script_safe_json(frames)}</script></div>'
        )

    def print_caption(self) -> str:
        """What the print form says under its frame: the control values it shows, then its description."""
        settings = text(self.lang, en=", ", zh="，").join(f"{c.label} = {c.fmt(c.value)}" for c in self.controls)
        return text(
            self.lang,
            en=f"Interactive in the online book; shown at {settings}. {self.figure().alt_text}",
            zh=f"在线版中可交互；此处显示的是 {settings} 时的图。{self.figure().alt_text}",
        )

    def print_png(self) -> bytes:
        """The print form: the default frame with its caption beneath, as a PNG for the PDF book."""
        figure = self.figure()
        figure.text(0, 0, textwrap.fill(self.print_caption(), PRINT_CAPTION_WIDTH), ha="left", va="top", fontsize=8)
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", dpi=PRINT_DPI, bbox_inches="tight")
        return buffer.getvalue()

    def _repr_mimebundle_(self, include=None, exclude=None):
        """Shown as the last value of a cell: the live widget for Jupyter, the static form for the website
        and the print form for the PDF book (each ranks its own first)."""
        bundle = dict(self.live()._repr_mimebundle_(include=include, exclude=exclude) or {})
        bundle["text/html"] = self.static_html()
        bundle["image/png"] = base64.b64encode(self.print_png()).decode("ascii")
        return bundle
