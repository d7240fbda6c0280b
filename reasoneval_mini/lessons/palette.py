"""The course's colours and figure size, defined once for every lesson figure.

Colours come from the Okabe-Ito palette (Okabe & Ito, "Color Universal
Design", 2008), chosen so that readers with the common forms of colour
blindness still tell them apart. Each execution state has ONE colour, the
same in every chart of every lesson; the other figures use the Okabe-Ito
colours that no state uses, so a colour never means two things.

The figure size and resolution make a figure readable on a projector
(704 x 396 pixels) while a notebook with a handful of figures stays far
below 1 MB.

>>> STATE_COLORS["passed"], STATE_COLORS["not_run"]
('#009e73', '#999999')
>>> FIGSIZE[0] * DPI, FIGSIZE[1] * DPI   # pixels of a default figure
(704.0, 396.0)
"""

from reasoneval_mini.records import (
    ASSERTION_FAILED,
    NOT_RUN,
    PASSED,
    RUNTIME_ERROR,
    TIMEOUT,
)

#: The eight Okabe-Ito colours by name (lower-case hex, as matplotlib reports them).
OKABE_ITO = {
    "black": "#000000",
    "orange": "#e69f00",
    "sky_blue": "#56b4e9",
    "bluish_green": "#009e73",
    "yellow": "#f0e442",
    "blue": "#0072b2",
    "vermillion": "#d55e00",
    "reddish_purple": "#cc79a7",
}

#: Grey, for "not scored": no outcome of the model (not_run, an unparsed answer).
GREY = "#999999"

#: One colour per execution state. Neighbours in the stacked bars (passed |
#: assertion_failed | timeout | runtime_error | not_run) differ in hue and
#: lightness, so no two adjacent segments merge for a colour-blind reader.
STATE_COLORS = {
    PASSED: OKABE_ITO["bluish_green"],
    ASSERTION_FAILED: OKABE_ITO["orange"],
    TIMEOUT: OKABE_ITO["sky_blue"],
    RUNTIME_ERROR: OKABE_ITO["vermillion"],
    NOT_RUN: GREY,
}

#: A sample that passes or fails its tests (lesson 02's subset pictures): the state colours.
PASS_COLOUR, FAIL_COLOUR = STATE_COLORS[PASSED], STATE_COLORS[ASSERTION_FAILED]

#: The verdicts of a final-answer scorer (lesson 01): equal, different, unparsed.
VERDICT_COLOURS = {True: STATE_COLORS[PASSED], False: STATE_COLORS[ASSERTION_FAILED], None: GREY}

#: Two estimators, or two models: colours no state uses. The lessons name them as they look
#: on screen, "blue" and "pink" (Okabe-Ito calls the second "reddish purple").
FIRST_SERIES_COLOUR, SECOND_SERIES_COLOUR = OKABE_ITO["blue"], OKABE_ITO["reddish_purple"]

#: Default figure size (inches) and resolution (dots per inch) of every lesson figure.
FIGSIZE, DPI = (6.4, 3.6), 110
