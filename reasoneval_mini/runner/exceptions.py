"""An exception across the boundary: plain bounded fields in the child, a stand-in on the trusted side.

Untrusted code may raise anything: an exception of its own class, whose
``__str__`` raises or returns megabytes, or a ``KeyboardInterrupt`` of its
own. The child (the executor's program, the grader's student) sends only
plain JSON fields, each bounded (:func:`describe_exception`); the trusted
side never unpickles anything, and rebuilds a stand-in from the fields
(:func:`rebuild_exception`) that acts like the original for a check's
``except ValueError`` and can do nothing else.

>>> class OutOfRange(ValueError):
...     pass
>>> fields = describe_exception(OutOfRange("n = -1"))
>>> fields["type"], fields["builtin"], fields["message"]
('OutOfRange', 'ValueError', 'n = -1')
>>> stand_in = rebuild_exception(fields)
>>> isinstance(stand_in, ValueError), type(stand_in).__name__, str(stand_in)
(True, 'OutOfRange', 'n = -1')

Surprising: a ``KeyboardInterrupt`` raised by the untrusted code comes back
as an ordinary ``Exception``; it must not stop the trusted side.

>>> isinstance(rebuild_exception(describe_exception(KeyboardInterrupt())), KeyboardInterrupt)
False

Standard library and :mod:`reasoneval_mini.support` only: a child imports it
(with the rest of the runner) before any untrusted code runs.
"""

import builtins
import functools

from reasoneval_mini.support.text import shorten

#: Characters of an exception's message (and of its class's name) sent across.
MAX_MESSAGE_CHARS = 1000
#: Characters of a class name a stand-in takes.
MAX_NAME_CHARS = 80

#: The description of an exception that could not be described at all.
UNREADABLE = {"exception": "<unreadable exception>", "type": "Exception", "builtin": "Exception",
              "message": "", "assertion": False, "system_exit": False}


def describe_exception(error):
    """The facts of *error* as plain JSON values, each bounded; never raises.

    ``exception``: the class's qualified name, with its module unless it is
    ``builtins`` or ``__main__`` (``"mymodule.OutOfRange"``); ``type``: its
    bare name; ``builtin``: the name of the nearest built-in class it derives
    from; ``message``: ``str(error)`` (a ``SyntaxError``'s ``msg``: its
    ``str()`` repeats the file and line), at most :data:`MAX_MESSAGE_CHARS`
    characters; ``assertion`` and ``system_exit``: whether it is an
    ``AssertionError`` or a ``SystemExit``; for a ``SystemExit``, ``exit_code``:
    the ``repr`` of its code, bounded like the message. A message that cannot be read (a
    hostile ``__str__``) is ``"<message could not be read>"``; if even the
    class cannot be read, the answer is :data:`UNREADABLE`.
    """
    try:
        kind = type(error)
        name = kind.__qualname__
        if kind.__module__ not in ("builtins", "__main__"):
            name = f"{kind.__module__}.{name}"
        builtin = next((base.__name__ for base in kind.__mro__
                        if base.__module__ == "builtins" and base is not object), "Exception")
        try:
            message = str(error.msg if isinstance(error, SyntaxError) else error)
        except BaseException:  # noqa: B036 - a hostile __str__
            message = "<message could not be read>"
        facts = {"exception": str(name)[:MAX_MESSAGE_CHARS],
                 "type": str(kind.__name__)[:MAX_MESSAGE_CHARS], "builtin": str(builtin),
                 "message": message[:MAX_MESSAGE_CHARS],
                 "assertion": isinstance(error, AssertionError),
                 "system_exit": isinstance(error, SystemExit)}
        if facts["system_exit"]:
            try:
                facts["exit_code"] = str(repr(error.code))[:MAX_MESSAGE_CHARS]
            except BaseException:  # noqa: B036 - a hostile __repr__
                facts["exit_code"] = "<code could not be shown>"
        return facts
    except BaseException:  # noqa: B036 - a hostile exception must not stop the report
        return dict(UNREADABLE)


def bounded_fields(fields):
    """*fields* as the trusted side keeps them: text of at most :data:`MAX_MESSAGE_CHARS`, flags, ints.

    What a child sent about an exception is not trusted (its code may have
    written any frame of its own): a value of another kind is dropped, and
    so is a key not of :func:`describe_exception`'s (and ``line``).

    >>> bounded_fields({"exception": "E" * 5000, "line": 3, "assertion": [1], "extra": "x"})["exception"][-3:]
    'EEE'
    >>> sorted(bounded_fields({"exception": "E", "line": 3, "assertion": [1], "extra": "x"}))
    ['exception', 'line']
    """
    kept = {}
    for key in _FIELDS:
        value = fields.get(key) if isinstance(fields, dict) else None
        if isinstance(value, str):
            kept[key] = value[:MAX_MESSAGE_CHARS]
        elif type(value) in (bool, int):
            kept[key] = value
    return kept


#: What :func:`bounded_fields` keeps.
_FIELDS = ("exception", "type", "builtin", "message", "assertion", "system_exit", "exit_code",
           "line")


def rebuild_exception(fields):
    """An exception standing for the one *fields* describe: same name, message and built-in base.

    *fields* comes from the child, so it is not trusted: anything missing or
    malformed gives a plain ``Exception``. A built-in base that is no
    ``Exception`` nor ``SystemExit`` (``KeyboardInterrupt``, ``GeneratorExit``)
    is replaced by ``Exception``, so that it cannot act on the trusted side;
    so is one whose constructor wants more than a message
    (``UnicodeDecodeError``). The message is one line
    (:func:`~reasoneval_mini.support.text.shorten`). One class serves every
    stand-in of a name and base (:func:`_stand_in_class`): the grader meets
    the same few hundreds of times per student.

    >>> type(rebuild_exception({"type": "Odd", "builtin": "UnicodeDecodeError"})).__mro__[1]
    <class 'Exception'>
    """
    if not isinstance(fields, dict):
        fields = {}
    base = getattr(builtins, str(fields.get("builtin")), Exception)
    if not (isinstance(base, type) and issubclass(base, (Exception, SystemExit))):
        base = Exception  # KeyboardInterrupt and the like must not act on the grader
    message = shorten(str(fields.get("message", "")))
    name = str(fields.get("type") or "")[:MAX_NAME_CHARS]
    name = name if name.isidentifier() else base.__name__  # type() refuses some names
    try:
        return _stand_in_class(name, base)(message)
    except TypeError:  # a base that takes more than one argument
        return _stand_in_class(name, Exception)(message)


def _stand_in_str(self):
    return self.args[0] if self.args else ""


@functools.lru_cache(maxsize=256)
def _stand_in_class(name, base):
    """The stand-in class *name* derived from *base* (a bounded cache: names come from students)."""
    return type(name, (base,), {"__str__": _stand_in_str, "__module__": "student"})
