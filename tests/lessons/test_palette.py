"""The course's colours: one per state, colour-blind safe, never two meanings."""

import matplotlib.colors

from reasoneval_mini import STATUSES
from reasoneval_mini.lessons.palette import (
    DPI,
    FIGSIZE,
    FIRST_SERIES_COLOUR,
    GREY,
    OKABE_ITO,
    SECOND_SERIES_COLOUR,
    STATE_COLORS,
    VERDICT_COLOURS,
)

# Okabe & Ito (2008), "Color Universal Design", as RGB triples: an independent copy.
PUBLISHED_OKABE_ITO_RGB = {
    (0, 0, 0), (230, 159, 0), (86, 180, 233), (0, 158, 115),
    (240, 228, 66), (0, 114, 178), (213, 94, 0), (204, 121, 167),
}


def rgb(hex_colour):
    return tuple(round(255 * v) for v in matplotlib.colors.to_rgb(hex_colour))


def test_the_palette_is_the_published_okabe_ito_set():
    assert {rgb(colour) for colour in OKABE_ITO.values()} == PUBLISHED_OKABE_ITO_RGB


def test_every_state_has_one_colour_in_the_states_order():
    assert tuple(STATE_COLORS) == STATUSES


def test_state_colours_are_distinct():
    assert len(set(STATE_COLORS.values())) == len(STATUSES)


def test_state_colours_are_okabe_ito_or_grey():
    allowed = set(OKABE_ITO.values()) | {GREY}
    assert set(STATE_COLORS.values()) <= allowed


def test_series_colours_are_never_a_state_colour():
    assert not {FIRST_SERIES_COLOUR, SECOND_SERIES_COLOUR} & set(STATE_COLORS.values())


def test_verdict_colours_reuse_the_meaning_of_the_state_colours():
    assert VERDICT_COLOURS[True] == STATE_COLORS["passed"]
    assert VERDICT_COLOURS[None] == STATE_COLORS["not_run"]


def test_default_figure_is_projector_sized():
    width, height = FIGSIZE[0] * DPI, FIGSIZE[1] * DPI
    assert width >= 640 and height >= 360
