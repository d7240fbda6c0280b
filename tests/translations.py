"""The zh-CN catalogue as the tests read it: the shipped ``.mo``, through the standard library.

The tests compare what the course shows with this, never with a Chinese string
typed into a test: a translation changed in the ``.po`` (and compiled) changes
what they expect, and an English text that lost its translation fails here.
``tests/editions/test_catalogue.py`` holds the ``.mo`` to be the compilation
of the ``.po``.
"""

import functools
from gettext import GNUTranslations, NullTranslations

from reasoneval_mini.support.i18n import DEFAULT_LANGUAGE, LOCALE_DIR


@functools.cache
def zh_catalogue():
    """The compiled zh-CN catalogue, read with :class:`gettext.GNUTranslations` (no fallback)."""
    with open(LOCALE_DIR / "zh_CN" / "LC_MESSAGES" / "reasoneval.mo", "rb") as handle:
        return GNUTranslations(handle)


def shipped_catalogue(language):
    """What a learner of *language* reads: English, the ids themselves; zh-CN, :func:`zh_catalogue`.

    Raises ``ValueError`` naming any other language (the tests know these two).
    """
    if language == DEFAULT_LANGUAGE:
        return NullTranslations()
    if language == "zh-CN":
        return zh_catalogue()
    raise ValueError(f"no catalogue for {language!r} in the tests; expected 'en' or 'zh-CN'")


def zh(english):
    """*english* as the shipped catalogue translates it; fails (naming it) when it does not."""
    translated = zh_catalogue().gettext(english)
    assert translated != english, f"no zh-CN translation of {english!r}"
    return translated


def widget_labels(widget):
    """The ``description`` of *widget* and of every widget inside it, in display order, blanks left out.

    The labels an explorer shows a learner: sliders', text boxes', dropdowns' and buttons'.
    """
    own = [widget.description] if getattr(widget, "description", "") else []
    return own + [label for child in getattr(widget, "children", ()) for label in widget_labels(child)]
