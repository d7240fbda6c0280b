"""Messages in the learner's language: one gettext catalogue, English as the source.

Every text the course prints to a learner or an instructor (``check()``,
``hint()``, ``progress()``, the in-lesson checks, the grader's feedback) is
written in English in the code and passed through :func:`_` (or
:func:`ngettext` where a count chooses the form). The English text is the
message id; each other language has a catalogue,
``reasoneval_mini/locale/<ll_CC>/LC_MESSAGES/reasoneval.po``, compiled to the
``.mo`` beside it that the standard library's :mod:`gettext` reads. So the
core needs nothing installed; Babel (the ``dev`` extra) extracts the ids and
compiles the catalogues (see ``docs/translating.md``), and a test fails when
an id has no translation or a ``.mo`` is older than its ``.po``.

The language is a setting of the kernel, like the exercise variant: the
build writes ``use_language("zh-CN")`` into the setup cell of a zh-CN
exercise notebook, and a zh-CN lesson calls it in its first code cell, so the
learner never has to remember it. The grader takes it from each notebook's
metadata (:data:`NOTEBOOK_LANGUAGE_KEY`) and speaks it in that notebook's
feedback.

>>> use_language("en") and _("not yet")
'not yet'

Surprising: a message without a translation is shown in English, never as
an empty string or an error; the test suite, not the learner, finds it.

>>> with language("zh-CN"):
...     _("a message nobody translated")
'a message nobody translated'
>>> current_language()
'en'

Texts defined when a module is imported (a constant, a table of states) are
marked with :func:`N_`, which returns them unchanged so that the extractor
finds them, and are passed through :func:`_` where they are shown.

>>> NOT_CHECKED = N_("not checked yet")
>>> with language("zh-CN"):
...     _(NOT_CHECKED) != NOT_CHECKED
True
>>> use_language("fr")
Traceback (most recent call last):
...
ValueError: unknown language 'fr'; expected one of: en, zh-CN
"""

import gettext
import threading
from collections.abc import Mapping
from contextlib import contextmanager
from pathlib import Path

__all__ = ["DEFAULT_LANGUAGE", "LANGUAGES", "NOTEBOOK_LANGUAGE_KEY", "N_", "_", "FormattedText",
           "TranslatedTexts", "current_language", "join_items", "language", "language_of_notebook",
           "ngettext", "use_language"]

#: The languages of the course, English first (the source of every message).
LANGUAGES = ("en", "zh-CN")
DEFAULT_LANGUAGE = "en"
#: gettext's domain: the catalogues are ``<locale>/LC_MESSAGES/reasoneval.mo``.
DOMAIN = "reasoneval"
#: Where the catalogues live, inside the package so that they install with it.
LOCALE_DIR = Path(__file__).resolve().parents[1] / "locale"
#: Where a notebook records its language: ``metadata["reasoneval"]["language"]``.
NOTEBOOK_LANGUAGE_KEY = "language"
#: The keywords the extractor looks for (``pybabel extract -k``; see docs/translating.md).
KEYWORDS = ("_", "N_", "ngettext")

# The process's language (use_language: the kernel's), and, per thread, the one a
# ``with language(...)`` block speaks: the grader grades students on several threads
# at once, each in the language of its own student's notebooks.
_CURRENT = [DEFAULT_LANGUAGE]
_LOCAL = threading.local()
_CATALOGUES = {}
_LOADING = threading.Lock()


def _checked(name):
    if name not in LANGUAGES:
        raise ValueError(f"unknown language {name!r}; expected one of: {', '.join(LANGUAGES)}")
    return name


def gettext_locale(name):
    """gettext's folder name for a course language: ``"zh-CN"`` is ``"zh_CN"``."""
    return _checked(name).replace("-", "_")


def catalogue(name):
    """The :class:`gettext.NullTranslations` of language *name* (English: the identity).

    A language whose compiled catalogue is missing falls back to English, so a
    checkout that has not compiled its catalogues still runs; the test suite
    requires every ``.mo`` to be present and current.
    """
    # Every message looks its catalogue up (thousands per graded student): one loaded is
    # read without the lock. It is stored once and never replaced, so the read is safe.
    if type(name) is str:
        loaded = _CATALOGUES.get(name)
        if loaded is not None:
            return loaded
    name = _checked(name)
    with _LOADING:
        if name not in _CATALOGUES:
            if name == DEFAULT_LANGUAGE:
                _CATALOGUES[name] = gettext.NullTranslations()
            else:
                _CATALOGUES[name] = gettext.translation(
                    DOMAIN, LOCALE_DIR, [gettext_locale(name)], fallback=True)
        return _CATALOGUES[name]


def use_language(name):
    """Make *name* (one of :data:`LANGUAGES`) the language of every message in this process.

    Returns *name*. Raises ``ValueError`` naming it for any other value.
    """
    _CURRENT[0] = _checked(name)
    return name


def current_language():
    """The language of this thread's ``with language(...)`` block, else of the last :func:`use_language`."""
    stack = getattr(_LOCAL, "stack", None)
    return stack[-1] if stack else _CURRENT[0]


@contextmanager
def language(name):
    """Speak *name* inside the ``with`` block, in this thread only; then the language from before.

    Other threads keep theirs (the grader judges several students at once).
    Raises ``ValueError`` naming *name* when it is not one of :data:`LANGUAGES`.
    """
    stack = getattr(_LOCAL, "stack", None)
    if stack is None:
        stack = _LOCAL.stack = []
    stack.append(_checked(name))
    try:
        yield name
    finally:
        stack.pop()


def N_(message):
    """*message* unchanged: marks a text defined at import time, translated by :func:`_` when shown."""
    return message


class FormattedText(str):
    """A text defined at import time from a catalogue id and its fields: the English, formatted.

    It is the English text everywhere a ``str`` is read; :func:`_` translates
    its id, then fills in the same fields. For a text that must be defined
    once but holds something a catalogue tool would take for a placeholder:
    ``"95% intervals"`` reads as the ``%i`` of a Python format to Babel, whose
    ``pybabel compile`` then fails on a translation without one, so the
    ``95%`` goes in as a field.

    >>> text = FormattedText(N_("their {level} intervals"), level="95%")
    >>> text, text.message
    ('their 95% intervals', 'their {level} intervals')
    >>> _(text)
    'their 95% intervals'
    """

    def __new__(cls, message, **fields):
        text = super().__new__(cls, message.format(**fields) if fields else message)
        text.message, text.fields = message, dict(fields)
        return text


class TranslatedTexts(Mapping):
    """A mapping from keys to catalogue ids that gives each text in the current language.

    For a table of texts that a notebook prints itself (``MENU[key]`` in a code
    cell, which runs the same program in every edition): the lookup, not the
    caller, translates, so the same line prints English in one edition and
    Chinese in the other. :attr:`ids` keeps the ids, for the catalogue tools.

    >>> menu = TranslatedTexts({"time_limit": N_("the time limit per sample")})
    >>> menu["time_limit"], list(menu)
    ('the time limit per sample', ['time_limit'])
    >>> with language("zh-CN"):
    ...     menu["time_limit"] == _("the time limit per sample") != "the time limit per sample"
    True
    """

    def __init__(self, ids):
        self.ids = dict(ids)

    def __getitem__(self, key):
        return _(self.ids[key])

    def __iter__(self):
        return iter(self.ids)

    def __len__(self):
        return len(self.ids)

    def __repr__(self):
        return f"{type(self).__name__}({self.ids!r})"


def _(message):
    """*message* (English, the catalogue's id) in the current language."""
    if isinstance(message, FormattedText):
        return catalogue(current_language()).gettext(message.message).format(**message.fields)
    return catalogue(current_language()).gettext(message)


def ngettext(singular, plural, count):
    """The form of *singular*/*plural* for *count*, in the current language (Chinese has one)."""
    return catalogue(current_language()).ngettext(singular, plural, count)


def join_items(items):
    """*items*, texts already in the current language, as one enumeration in that language.

    For a list read as prose (rubric criteria, kinds of mistake, counts of
    states). A value shown as Python (a list's ``repr``, a set of ids) keeps
    its ``", "``, and so does every text the code splits again.

    >>> join_items(["style", "accuracy"])
    'style, accuracy'
    >>> with language("zh-CN"):
    ...     join_items(["表达空间", "局限"])
    '表达空间、局限'
    """
    # The separator is a message of its own: Chinese enumerates with "、", where English
    # writes ", " (and a reader of Chinese sees ", " as a slip of the Latin keyboard).
    return _(", ").join(str(item) for item in items)


def language_of_notebook(notebook):
    """The language a notebook object's metadata records; English when it records none.

    Raises ``ValueError`` naming the value when the metadata holds a language
    the course does not have (a hand-edited notebook).
    """
    recorded = ((notebook.get("metadata") or {}).get("reasoneval") or {}).get(
        NOTEBOOK_LANGUAGE_KEY, DEFAULT_LANGUAGE)
    return _checked(recorded)
