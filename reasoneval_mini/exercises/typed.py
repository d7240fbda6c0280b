"""Typed answers: a prediction is written out in the function's body, never computed.

A prediction exercise (``Exercise(..., typed=True)``) asks the learner to
predict what a function of the course returns and to *type the predictions
in*. An answer that computes them (calls ``numeric_equivalence``, runs the
programs, imports a table) answers another question, and it would still
pass when run by the grader. So the check reads the answer's *source*: its
body must be one ``return`` of a literal (dicts, sets, lists, tuples, strings,
numbers, ``True``, ``False``, ``None``), after an optional docstring, and
that literal is the answer.

``check()`` reads the source of the function it is given
(:func:`typed_value`: IPython keeps every cell's source); the grader reads
the notebook cell that last defines the function
(:func:`typed_value_from_source`), never what a later cell may have put
under its name at run time.

>>> typed_value_from_source("def guess():\\n    'Mine.'\\n    return {'a': True, 'b': None}\\n", "guess")
{'a': True, 'b': None}
>>> typed_value_from_source("def guess():\\n    return {p: len(p) for p in 'ab'}\\n", "guess")
Traceback (most recent call last):
...
reasoneval_mini.exercises.typed.NotTyped: guess() must return its predictions typed in as a literal (a dict, set or list of texts, numbers, True, False, None), not compute them: line 2 builds them with a comprehension

Surprising: a name for a constant is not a literal either, even ``PASSED``.

>>> typed_value_from_source("def guess():\\n    return {'p': PASSED}\\n", "guess")
Traceback (most recent call last):
...
reasoneval_mini.exercises.typed.NotTyped: guess() must return its predictions typed in as a literal (a dict, set or list of texts, numbers, True, False, None), not compute them: line 2 uses the name PASSED (type the text 'passed' itself)
"""

import ast
import inspect
import textwrap

from reasoneval_mini.support.i18n import _

__all__ = ["MAX_TYPED_SOURCE_CHARS", "NotTyped", "typed_value", "typed_value_from_source"]

#: Longest cell read for a typed answer: a student controls it, and the grader parses it and
#: compares what it holds in its own process; a real prediction is a few hundred characters.
MAX_TYPED_SOURCE_CHARS = 20_000


class NotTyped(ValueError):
    """The answer does not return a typed-in literal; the message says what it does instead."""


def _rule(name):
    return _("{name}() must return its predictions typed in as a literal (a dict, set or list "
             "of texts, numbers, True, False, None), not compute them").format(name=name)


def _what_it_computes(node):
    """A short phrase for the first thing in *node* that is not a literal."""
    for child in ast.walk(node):
        if isinstance(child, ast.Name):
            if child.id.isupper():
                return _("uses the name {name} (type the text {text!r} itself)").format(
                    name=child.id, text=child.id.lower())
            return _("uses the name {name}").format(name=child.id)
        if isinstance(child, ast.Call):
            return _("calls a function")
        if isinstance(child, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            return _("builds them with a comprehension")
        if isinstance(child, ast.Attribute):
            return _("reads an attribute")
    return _("computes them")


def typed_value_from_source(source, name):
    """The literal the last ``def name`` in *source* returns; :class:`NotTyped` otherwise.

    Raises :class:`NotTyped` when *source* is too long or does not parse,
    defines no such function, or the body is anything but one ``return``
    of a literal; ``NotImplementedError`` for the untouched stub (its body
    only raises it), which is "not attempted", not wrong.
    """
    if not isinstance(source, str) or len(source) > MAX_TYPED_SOURCE_CHARS:
        raise NotTyped(_("{rule}: its cell is over {limit} characters").format(
            rule=_rule(name), limit=MAX_TYPED_SOURCE_CHARS))
    try:
        tree = ast.parse(textwrap.dedent(source))
    except (SyntaxError, ValueError, MemoryError, RecursionError) as error:
        raise NotTyped(_("{rule}: its cell does not parse ({error_type})").format(
            rule=_rule(name), error_type=type(error).__name__)) from None
    defs = [node for node in tree.body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name]
    if not defs:
        raise NotTyped(_("{rule}: no 'def {name}' found in its cell").format(
            rule=_rule(name), name=name))
    body = list(defs[-1].body)
    if (body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)):
        body = body[1:]  # the docstring
    if (len(body) == 1 and isinstance(body[0], ast.Raise) and body[0].exc is not None
            and "NotImplementedError" in ast.unparse(body[0].exc)):
        raise NotImplementedError(_("the function still raises NotImplementedError"))  # the stub
    if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None:
        line = body[0].lineno if body else defs[-1].lineno
        raise NotTyped(_("{rule}: its body must be a single return statement "
                         "(line {line} is not)").format(rule=_rule(name), line=line))
    try:
        return ast.literal_eval(body[0].value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise NotTyped(_("{rule}: line {line} {what}").format(
            rule=_rule(name), line=body[0].lineno, what=_what_it_computes(body[0].value))) from None


def typed_value(function):
    """The literal *function* returns, read from its source (see the module docstring)."""
    name = getattr(function, "__name__", "answer")
    try:
        source = inspect.getsource(function)
    except (OSError, TypeError):
        raise NotTyped(_("{rule}: its source cannot be read (define it with 'def' in a "
                         "notebook cell)").format(rule=_rule(name))) from None
    return typed_value_from_source(source, name)
