"""Watch a call for the functions it must not use: the "write it yourself" rule, enforced.

An exercise that asks a learner to write ``parse_rational`` is not answered
by calling the library's ``parse_rational``. :class:`CallWatch` runs a call
under a profile hook (``sys.setprofile``) and records every *refused*
function that ran inside it, however it was reached:

by any name or alias (``from reasoneval_mini import parse_rational as p``),
through another library function that calls it, or through a function
object rebuilt from its code: the hook compares code objects, not names.
A copy of its *source* written into the notebook is not a call, and is not
caught: an honest answer can have the same shape as the reference, and
calling that delegation would take points nobody should lose.

It also records the builtins that would take the call out of its sight (a new
profile or trace hook, a raw thread, a fork, a new program), since those are
ways to run a refused function where the hook cannot see it. Raising the
refusal is :func:`watched`'s job; the hook itself only records, because an
exception raised inside a profile hook is not delivered reliably.

This is a rule checked inside the learner's own process, not a security
boundary: code that patches the watch itself (found through ``gc``) can hide
a call. It catches every shortcut that calls the library, which is what the
exercises forbid, and it is the same in ``check()`` and under the grader.

>>> import fractions
>>> def mine(text):
...     return fractions.Fraction(text)
>>> watched(mine, {"fractions.Fraction.__new__": fractions.Fraction.__new__})("1/2")
Traceback (most recent call last):
...
reasoneval_mini.support.call_watch.DelegationRefused: your function calls fractions.Fraction.__new__, which does what this exercise asks you to write yourself

Surprising: a function rebuilt from the refused one's code is the refused one.

>>> import types
>>> def double(x):
...     return x * 2
>>> rebuilt = types.FunctionType(double.__code__, {})
>>> watched(lambda: rebuilt(3), {"double": double})()
Traceback (most recent call last):
...
reasoneval_mini.support.call_watch.DelegationRefused: your function calls double, which does what this exercise asks you to write yourself
"""

import importlib
import sys
import threading

__all__ = ["CallWatch", "DelegationRefused", "ESCAPES", "resolve_refused", "watched"]

# Bound at import, before any learner code can replace them in ``sys``.
_setprofile, _getprofile = sys.setprofile, sys.getprofile


class DelegationRefused(Exception):
    """The answer ran a function its exercise refuses; ``function`` names it."""

    def __init__(self, function, escape=False):
        self.function, self.escape = function, escape
        if escape:
            text = (f"your function calls {function}, which runs code where the course "
                    f"cannot see what it calls; write the answer as plain code")
        else:
            text = (f"your function calls {function}, which does what this exercise "
                    f"asks you to write yourself")
        super().__init__(text)


def _escapes():
    # The builtins whose call hides later calls from the hook, by their qualified name.
    import _thread
    import os

    found = {"sys.setprofile": sys.setprofile, "sys.settrace": sys.settrace,
             "threading.setprofile": threading.setprofile,
             "threading.settrace": threading.settrace,
             "_thread.start_new_thread": _thread.start_new_thread}
    for name in ("fork", "forkpty", "posix_spawn", "posix_spawnp", "execv", "execve",
                 "spawnv", "spawnve", "system", "popen"):
        if hasattr(os, name):
            found[f"os.{name}"] = getattr(os, name)
    try:
        import _posixsubprocess
        found["subprocess (_posixsubprocess.fork_exec)"] = _posixsubprocess.fork_exec
    except ImportError:  # Windows
        import _winapi
        found["subprocess (_winapi.CreateProcess)"] = _winapi.CreateProcess
    for name in ("setprofile_all_threads", "settrace_all_threads"):
        if hasattr(threading, name):  # Python 3.12+
            found[f"threading.{name}"] = getattr(threading, name)
    return found


#: Qualified name -> builtin (or function) whose call during a watched call is refused.
ESCAPES = _escapes()


def resolve_refused(names):
    """``{name: function}`` for dotted names such as ``"reasoneval_mini.answers.parse_rational"``.

    The last part is an attribute of the module before it (``module.Class.method``
    works too). ``ValueError`` names a name that does not resolve: an
    exercise that refuses a function that does not exist refuses nothing.

    >>> sorted(resolve_refused(["fractions.Fraction.limit_denominator"]))
    ['fractions.Fraction.limit_denominator']
    >>> resolve_refused(["fractions.no_such_function"])
    Traceback (most recent call last):
    ...
    ValueError: refused function 'fractions.no_such_function' does not resolve: ...
    """
    found = {}
    for name in names:
        parts = name.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            try:
                target = importlib.import_module(".".join(parts[:cut]))
            except ImportError:
                continue
            try:
                for attribute in parts[cut:]:
                    target = getattr(target, attribute)
            except AttributeError as error:
                raise ValueError(f"refused function {name!r} does not resolve: {error}") from None
            found[name] = target
            break
        else:
            raise ValueError(f"refused function {name!r} does not resolve: no module in it")
    return found


def _code_of(function):
    code = getattr(function, "__code__", None)
    if code is None:
        code = getattr(getattr(function, "__func__", None), "__code__", None)
    return code


class CallWatch:
    """Record, while active, each refused function (and each escape) that runs.

    *refused*: ``{shown name: function}``. Python functions are matched by
    code object; builtins (and the :data:`ESCAPES`) by the object a
    ``c_call`` event carries. :attr:`seen` lists what ran, in order,
    each name once; :attr:`escaped` those that were escapes.
    """

    def __init__(self, refused):
        self.codes, self.builtins = {}, {}
        for name, function in refused.items():
            code = _code_of(function)
            if code is not None:
                self.codes[code] = name
            else:
                self.builtins[id(function)] = name
        self.escapes = {id(function): name for name, function in ESCAPES.items()}
        self.seen, self.escaped = [], []
        self.active = False

    def _note(self, name, escape=False):
        if name not in self.seen:
            self.seen.append(name)
            if escape:
                self.escaped.append(name)

    def _hook(self, frame, event, arg):
        if not self.active:  # __exit__ is removing the hook: its own setprofile call
            return
        if event == "call":
            name = self.codes.get(frame.f_code)
            if name is not None:
                self._note(name)
        elif event == "c_call":
            key = id(arg)
            if key in self.builtins:
                self._note(self.builtins[key])
            elif key in self.escapes:
                self._note(self.escapes[key], escape=True)

    def __enter__(self):
        self._previous = _getprofile()
        self.active = True
        self._installed = self._hook  # one bound method: compared by identity on exit
        _setprofile(self._installed)
        return self

    def __exit__(self, *exc_info):
        if _getprofile() is not self._installed:
            # The call replaced the hook without calling sys.setprofile as seen (through
            # a saved reference bound before the watch): it hid what followed.
            self._note("sys.setprofile", escape=True)
        self.active = False
        _setprofile(self._previous)
        return False


def watched(function, refused):
    """*function*, wrapped: each call runs under a :class:`CallWatch` of *refused*.

    A call that ran a refused function (or an escape) raises
    :class:`DelegationRefused` naming the first one, whatever it returned or
    raised. An empty *refused* returns *function* itself.
    """
    if not refused:
        return function

    def call(*args, **kwargs):
        watch = CallWatch(refused)
        try:
            with watch:
                result = function(*args, **kwargs)
        except BaseException:
            if watch.seen:
                raise DelegationRefused(watch.seen[0], watch.seen[0] in watch.escaped) from None
            raise
        if watch.seen:
            raise DelegationRefused(watch.seen[0], watch.seen[0] in watch.escaped)
        return result

    call.__name__ = getattr(function, "__name__", "answer")
    call.__wrapped__ = function
    return call
