"""Interactive figures: one description, two forms.

An `InteractiveFigure` pairs a drawing function from `rope_lib.plotting` with
the controls that feed it. Every control lists the values it can take, so the
same description yields the live ipywidgets form in Jupyter (`live()`) and can
be enumerated to pre-render a kernel-free form for the website. The figures of
each topic live in a module of this package.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Any, Callable

from ..plotting.style import BookFigure


@dataclass(frozen=True)
class Control:
    """One slider: the keyword `name` of the draw function, a label, and the values it can take."""

    name: str
    label: str
    values: tuple
    value: Any
    fmt: Callable[[Any], str] = field(default=str)

    def __post_init__(self):
        if len(self.values) < 2:
            raise ValueError(f"control {self.name!r} must offer at least two values, got {self.values!r}")
        if self.value not in self.values:
            raise ValueError(f"control {self.name!r}: value {self.value!r} must be one of its values {self.values!r}")


@dataclass(frozen=True)
class InteractiveFigure:
    """draw(**{control.name: value}) → BookFigure, with the controls that choose its arguments."""

    draw: Callable[..., BookFigure]
    controls: tuple[Control, ...]

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

    def _repr_mimebundle_(self, include=None, exclude=None):
        """Shown as the last value of a cell: the live widget in Jupyter."""
        return self.live()._repr_mimebundle_(include=include, exclude=exclude)
