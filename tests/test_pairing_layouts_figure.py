"""The figure of the two pairing layouts (chapter "The implementation in LLaMA"): the pairs it joins and the arrows
it draws between the layouts are rope_lib's permutation, read back from the drawn artists; a wrong permutation
planted in rope_lib.layouts shows in the figure and fails the check; both languages draw every glyph."""

import numpy as np
import pytest
from matplotlib.text import Annotation

import rope_lib
import rope_lib.layouts
from glyphs import assert_chinese_figure, assert_english_figure, drawn_words
from rope_lib.teach import llama_implementation
from rope_lib.teach.shared.figure_style import BookFigure
from rope_lib.teach.llama_implementation import PAIRING_ROWS


def drawn(fig):
    """What the figure draws, read from its artists: the joined pairs of each row as sorted tuples of slots (the ends
    of each bracket), and the arrows as {slot in the interleaved row: slot in the half row}."""
    (ax,) = fig.axes
    pairs = {layout: sorted(tuple(sorted(int(round(x)) for x in (line.get_xdata()[0], line.get_xdata()[-1])))
                            for line in ax.get_lines() if line.get_gid() == f"{layout} pair")
             for layout in PAIRING_ROWS}
    arrows = [a for a in ax.texts if isinstance(a, Annotation) and a.get_gid() == "permutation"]
    for a in arrows:  # every arrow runs from the interleaved row down to the half row
        assert a.xyann[1] > PAIRING_ROWS["half"] and a.xy[1] < PAIRING_ROWS["interleaved"]
    moves = {int(round(a.xyann[0])): int(round(a.xy[0])) for a in arrows}
    assert len(moves) == len(arrows)  # one arrow per coordinate
    return pairs, moves


def assert_draws_the_permutation(fig, d):
    """The pairs are (2j, 2j+1) on top and (j, j + d/2) below, and the arrows send i to its place in half_order."""
    pairs, moves = drawn(fig)
    half = d // 2
    assert pairs["interleaved"] == [(2 * j, 2 * j + 1) for j in range(half)]
    assert pairs["half"] == [(j, j + half) for j in range(half)]
    order = rope_lib.layouts.half_order(d)  # the half layout's slot p holds the interleaved coordinate order[p]
    assert moves == {int(i): p for p, i in enumerate(order)}
    assert moves == {i: int(p) for i, p in enumerate(rope_lib.layouts.interleaved_order(d))}


@pytest.mark.parametrize("d", [2, 4, 8, 16])
def test_the_figure_draws_rope_libs_pairs_and_permutation(d):
    fig = llama_implementation.plot_pairing_layouts(d)
    assert isinstance(fig, BookFigure) and len(fig.alt_text.split()) >= 25
    assert_draws_the_permutation(fig, d)
    (ax,) = fig.axes
    assert len([p for p in ax.patches if p.get_gid() == "interleaved box"]) == len([p for p in ax.patches if p.get_gid() == "half box"]) == d


def test_eight_coordinates_as_the_chapter_draws_them():
    fig = llama_implementation.plot_pairing_layouts(8)
    pairs, moves = drawn(fig)
    assert pairs["half"] == [(0, 4), (1, 5), (2, 6), (3, 7)]
    assert moves == {0: 0, 1: 4, 2: 1, 3: 5, 4: 2, 5: 6, 6: 3, 7: 7}
    assert "0→0, 1→4, 2→1, 3→5, 4→2, 5→6, 6→3, 7→7" in fig.alt_text and "pair 1 is (1, 5)" in fig.alt_text
    words = drawn_words(fig)
    assert "↓ permute_rows_to_half" in words and "↑ permute_rows_to_interleaved" in words


def test_each_pair_keeps_its_colour_across_the_layouts():
    fig = llama_implementation.plot_pairing_layouts(8)
    (ax,) = fig.axes
    colour = {layout: [p.get_edgecolor() for p in ax.patches if p.get_gid() == f"{layout} box"] for layout in PAIRING_ROWS}
    for i, p in enumerate(rope_lib.layouts.interleaved_order(8)):
        assert colour["interleaved"][i] == colour["half"][p]
    assert len({c for c in colour["interleaved"]}) == 4  # one colour per pair


def test_a_planted_wrong_permutation_shows_and_fails(monkeypatch):
    """Break rope_lib's permutation (pairs of the half layout taken as (2j, 2j+1) again, but in reverse): the figure,
    drawn from rope_lib, draws the wrong arrows and pairs, and the check above refuses them."""
    right = rope_lib.layouts.half_order
    monkeypatch.setattr(rope_lib.layouts, "half_order", lambda d: right(d)[::-1].copy())
    fig = llama_implementation.plot_pairing_layouts(8)
    _, moves = drawn(fig)
    assert moves == {i: 7 - p for i, p in enumerate(np.argsort(right(8)))}  # the figure follows rope_lib …
    monkeypatch.undo()
    with pytest.raises(AssertionError):
        assert_draws_the_permutation(fig, 8)  # … and the check sees it is not the half layout


def test_a_wrong_pairing_alone_fails_too(monkeypatch):
    """A permutation that keeps neighbours together (the identity) draws (2j, 2j+1) below as well: refused."""
    monkeypatch.setattr(rope_lib.layouts, "half_order", lambda d: np.arange(d))
    fig = llama_implementation.plot_pairing_layouts(8)
    monkeypatch.undo()
    with pytest.raises(AssertionError):
        assert_draws_the_permutation(fig, 8)


def test_both_languages_draw_every_glyph():
    english, chinese = llama_implementation.plot_pairing_layouts(8), llama_implementation.plot_pairing_layouts(8, lang="zh")
    assert_english_figure(english)
    assert_chinese_figure(chinese)
    assert drawn(english) == drawn(chinese)  # the same drawing, in other words
    assert "0→0, 1→4, 2→1" in chinese.alt_text and "permute_rows_to_half" in chinese.alt_text


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="d must be a positive even integer"):
        llama_implementation.plot_pairing_layouts(7)
    with pytest.raises(ValueError, match="d must be at most 16"):
        llama_implementation.plot_pairing_layouts(18)
    with pytest.raises(ValueError, match="lang"):
        llama_implementation.plot_pairing_layouts(8, lang="fr")
