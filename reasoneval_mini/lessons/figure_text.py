"""Text on the lessons' figures: in the notebook's language where the machine can draw it.

A figure's labels, titles and legends are messages like any other (English ids in
the catalogue), with one difference: matplotlib draws them with a font, and its
own font (DejaVu Sans) has no Chinese characters. So :func:`figure_text` gives
the translation only when a font for the language's script is installed
(:data:`SCRIPT_FONTS`; one of them ships with each desktop system), and makes
matplotlib fall back to it for the characters its first font lacks. Elsewhere
the figure keeps its English labels: a box for every character would say less
than English does. The data of a figure never depends on the language.

>>> from reasoneval_mini.support.i18n import N_, language
>>> figure_text(N_("samples"))
'samples'

Surprising: without a Chinese font the zh-CN figure stays English, by design.

>>> with language("zh-CN"):
...     figure_text(N_("samples")) == ("samples" if script_font("zh-CN") is None else "样本数")
True
"""

from functools import lru_cache

from reasoneval_mini.support.i18n import _, current_language

__all__ = ["SCRIPT_FONTS", "figure_text", "prepare_figure_fonts", "script_font"]

#: Font families that can draw a language's script, most common first: Linux
#: (Noto, Source Han, WenQuanYi), Windows (Microsoft YaHei, SimHei), macOS (PingFang,
#: Heiti). A language that is not listed is drawn with matplotlib's own fonts.
SCRIPT_FONTS = {
    "zh-CN": ("Noto Sans CJK SC", "Source Han Sans SC", "Noto Sans SC", "WenQuanYi Zen Hei",
              "WenQuanYi Micro Hei", "Microsoft YaHei", "SimHei", "PingFang SC", "Heiti SC",
              "Arial Unicode MS"),
}


@lru_cache(maxsize=None)
def script_font(name):
    """The installed family that draws language *name*'s script, ``""`` if none is needed,
    ``None`` if one is needed and none is installed (matplotlib's font list, read once)."""
    wanted = SCRIPT_FONTS.get(name)
    if not wanted:
        return ""
    from matplotlib import font_manager

    installed = {entry.name for entry in font_manager.fontManager.ttflist}
    return next((family for family in wanted if family in installed), None)


def _fall_back_to(family):
    # matplotlib (3.6 and newer) draws each character with the first family of
    # font.family that has it: keep its own first, so that digits and Latin look as in
    # the English figures, and add the script's family after it. Set for the whole
    # session, since a figure is drawn when the cell ends, after the helper returned.
    import matplotlib

    families = list(matplotlib.rcParams["font.family"])
    if family not in families:
        matplotlib.rcParams["font.family"] = families + [family]


def prepare_figure_fonts():
    """Make the current language's script drawable in the figures made from now on.

    Called by every helper of the lessons before it makes a figure: a figure's
    Text objects take their font when they are made, so the fallback must be in
    place before the figure exists, not only when its first label is chosen.
    """
    family = script_font(current_language())
    if family:
        _fall_back_to(family)


def figure_text(message):
    """*message* (an English id, marked with ``N_``) as a figure should show it.

    The current language's translation when its script can be drawn (see
    :func:`script_font`), else the English. Format after calling it, as with
    ``_``: ``figure_text(N_("n = {n}")).format(n=5)``.
    """
    if script_font(current_language()) is None:
        return message
    prepare_figure_fonts()
    return _(message)
