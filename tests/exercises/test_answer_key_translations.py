"""The answer key's why-lines in the learner's language (solutions/answer_key.py, ``WHY_TRANSLATED``).

A keyed exercise's why-lines (shown by ``check()`` once an answer is right)
live in the answer key, out of the package, so the gettext catalogue cannot
hold them. The key holds their translations itself, keyed by the English
text as a catalogue is: these tests fail, naming the line, when a why-line of
a translated exercise has no translation (a new or edited English line), when
a translation is left over from an English line that is gone, and when a
translation drops a code span of its English.
"""

import ast
import re
from pathlib import Path

import pytest

from reasoneval_mini.editions import translated_languages
from reasoneval_mini.exercises.answer_key import answer_key
from reasoneval_mini.exercises.registry import EXERCISES
from reasoneval_mini.exercises.variants import Variant
from reasoneval_mini.support.i18n import language

ROOT = Path(__file__).resolve().parents[2]
#: Keyed exercises whose why-lines are not translated yet (they show in English).
UNTRANSLATED = set()
CODE_SPAN = re.compile(r"`[^`]+`")


def _key_file():
    tree = ast.parse((ROOT / "solutions" / "answer_key.py").read_text(encoding="utf-8"))
    return {node.targets[0].id: ast.literal_eval(node.value) for node in tree.body
            if isinstance(node, ast.Assign) and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)}


def _translated_exercises(name):
    """The keyed exercises of the notebooks that have a *name* edition, less the known gaps."""
    notebooks = {path.name for path in (ROOT / "solutions" / name).glob("*.ipynb")}
    return sorted(exercise_id for exercise_id in _key_file().get("WHY", {})
                  if exercise_id in EXERCISES and EXERCISES[exercise_id].notebook in notebooks
                  and exercise_id not in UNTRANSLATED)


def test_ex03s_keyed_exercises_are_translated():
    # A guard on the guard: with nothing to check, the tests below would pass vacuously.
    assert {"kp3_predict_statuses", "kp3_conditions_to_fix", "kp3_human_eval_call_chain",
            "kp3_possible_states"} <= set(_translated_exercises("zh-CN"))


@pytest.mark.parametrize("name", translated_languages())
def test_every_why_line_of_a_translated_exercise_has_a_translation(name):
    key = _key_file()
    translations = key.get("WHY_TRANSLATED", {}).get(name, {})
    missing = [f"{exercise_id} / {item}: {why!r}"
               for exercise_id in _translated_exercises(name)
               for item, why in key["WHY"][exercise_id].items()
               if not translations.get(why, "").strip()]
    assert not missing, (f"why-lines without a {name} translation in solutions/answer_key.py "
                         f"(WHY_TRANSLATED[{name!r}], keyed by the English):\n" + "\n".join(missing))


@pytest.mark.parametrize("name", translated_languages())
def test_no_translation_is_left_from_an_english_line_that_is_gone(name):
    key = _key_file()
    english = {why for reasons in key["WHY"].values() for why in reasons.values()}
    left = [text for text in key.get("WHY_TRANSLATED", {}).get(name, {}) if text not in english]
    assert not left, ("translations whose English is no why-line any more (edited? translate "
                      "the new text instead):\n" + "\n".join(map(repr, left)))


@pytest.mark.parametrize("name", translated_languages())
def test_a_translation_keeps_the_code_spans_of_its_english(name):
    wrong = [f"{english!r}: {sorted(set(CODE_SPAN.findall(english)) - set(CODE_SPAN.findall(text)))}"
             for english, text in _key_file().get("WHY_TRANSLATED", {}).get(name, {}).items()
             if set(CODE_SPAN.findall(english)) - set(CODE_SPAN.findall(text))]
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("exercise_id", _translated_exercises("zh-CN"))
def test_the_why_a_zh_cn_learner_reads_is_the_translation(exercise_id):
    exercise = EXERCISES[exercise_id]
    data = exercise.data(Variant("student-017"))
    translations = _key_file()["WHY_TRANSLATED"]["zh-CN"]
    english = exercise.explain(data)
    with language("zh-CN"):
        chinese = exercise.explain(data)
        assert answer_key().why(exercise_id) == {
            item: translations[why] for item, why in _key_file()["WHY"][exercise_id].items()}
    assert chinese != english and len(chinese.splitlines()) == len(english.splitlines())
    for line in english.splitlines():
        why = line.split(": ", 1)[1]
        assert why not in chinese, why
        assert translations[why] in chinese
