"""The message catalogue: every English message has a Chinese translation, compiled, and used.

Issue 28, item 2. The ids are found by Babel's own extractor over the package
(the keywords of ``docs/translating.md``), not by a list kept here; the
catalogue is read with Babel and, for what the package speaks, through the
compiled ``.mo`` with the standard library, as the package reads it. The
expected Chinese texts are taken from the catalogue, never typed into a test.
"""

import csv
import difflib
import io
import json
import re
import string
from collections import Counter
from gettext import GNUTranslations
from pathlib import Path

import pytest

babel_extract = pytest.importorskip("babel.messages.extract")
from babel.messages.mofile import write_mo  # noqa: E402
from babel.messages.pofile import read_po  # noqa: E402

from reasoneval_mini.support.i18n import (  # noqa: E402
    DEFAULT_LANGUAGE, KEYWORDS, LANGUAGES, LOCALE_DIR, N_, DOMAIN, current_language,
    gettext_locale, language, use_language)

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "reasoneval_mini"
#: Babel's keyword specs for the package's markers: ngettext's ids are its first two arguments.
BABEL_KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2)}
TRANSLATED = [name for name in LANGUAGES if name != DEFAULT_LANGUAGE]


def po_path(name):
    return LOCALE_DIR / gettext_locale(name) / "LC_MESSAGES" / f"{DOMAIN}.po"


def mo_path(name):
    return po_path(name).with_suffix(".mo")


def read_catalogue(name):
    with open(po_path(name), "rb") as handle:
        return read_po(handle, locale=gettext_locale(name))


def extracted_ids():
    """``{id: [file:line, ...]}`` for every message Babel finds in the package (id: str or tuple)."""
    found = {}
    for filename, line, message, _comments, _context in babel_extract.extract_from_dir(
            str(PACKAGE), method_map=[("**.py", "python")], keywords=BABEL_KEYWORDS,
            comment_tags=(), strip_comment_tags=True):
        if isinstance(message, tuple):
            message = tuple(part for part in message if part)  # ngettext: (singular, plural)
            if len(message) == 1:
                message = message[0]
        if not message:
            continue
        found.setdefault(message, []).append(f"reasoneval_mini/{filename}:{line}")
    return found


IDS = extracted_ids()


def _english(key):
    return key if isinstance(key, str) else key[0]


def _key(message):
    return message.id if isinstance(message.id, str) else tuple(message.id)


def _strings(message):
    return [message.string] if isinstance(message.string, str) else list(message.string)


def test_the_keywords_the_tests_extract_are_the_ones_i18n_documents():
    assert set(BABEL_KEYWORDS) == set(KEYWORDS)
    assert N_("a text") == "a text"


def test_the_extractor_finds_the_framework_messages():
    # A guard on the guard: an extractor that found nothing would make every check below pass.
    files = {where.split(":")[0] for places in IDS.values() for where in places}
    for module in ("feedback.py", "exercises/checks.py", "lessons/in_lesson_checks.py",
                   "grading/reports.py", "grading/grader.py", "cli/progress.py"):
        assert f"reasoneval_mini/{module}" in files, module
    assert len(IDS) > 100


@pytest.mark.parametrize("name", TRANSLATED)
def test_every_message_of_the_package_has_a_translation(name):
    catalogue = read_catalogue(name)
    translated = {_key(m): m for m in catalogue if m.id and not m.fuzzy and all(_strings(m))}
    # An English text that changed after its translation: the old id is still in the
    # catalogue, and the failure shows it beside the new one.
    stale = {_english(key): key for key in translated if key not in IDS}
    missing = []
    for message, places in IDS.items():
        if message in translated:
            continue
        was = difflib.get_close_matches(_english(message), list(stale), n=1, cutoff=0.6)
        missing.append(f"{places[0]}: {message!r}"
                       + (f"\n    the catalogue translates an earlier text: {stale[was[0]]!r}"
                          if was else ""))
    assert not missing, (f"{len(missing)} message(s) without a {name} translation in "
                         f"{po_path(name).relative_to(ROOT)} (see docs/translating.md):\n"
                         + "\n".join(missing))


@pytest.mark.parametrize("name", TRANSLATED)
def test_the_catalogue_holds_no_message_the_package_no_longer_has(name):
    # A stale entry is a translation of an English text that changed: it hides nothing
    # from the learner, but it is work a translator must see (pybabel update drops it).
    stale = [repr(_key(m)) for m in read_catalogue(name) if m.id and _key(m) not in IDS]
    assert not stale, f"{po_path(name).relative_to(ROOT)} has ids the code no longer uses:\n" \
                      + "\n".join(stale)


@pytest.mark.parametrize("name", TRANSLATED)
def test_the_compiled_catalogue_is_the_catalogue(name):
    catalogue = read_catalogue(name)
    compiled = io.BytesIO()
    write_mo(compiled, catalogue)  # what `pybabel compile` writes, in memory
    fresh = GNUTranslations(io.BytesIO(compiled.getvalue()))
    with open(mo_path(name), "rb") as handle:
        shipped = GNUTranslations(handle)
    differing = sorted(repr(key) for key in set(fresh._catalog) | set(shipped._catalog)
                       if fresh._catalog.get(key) != shipped._catalog.get(key))
    assert not differing, (f"{mo_path(name).relative_to(ROOT)} is not compiled from its .po; "
                           "run pybabel compile (docs/translating.md). Differing ids:\n"
                           + "\n".join(differing[:20]))


_PERCENT = re.compile(r"%(?:\([^)]*\))?[-#0 +]*\d*(?:\.\d+)?[sdrifgeExXoc%]")


def placeholders(text):
    """The ``{field!conversion:spec}`` and ``%s``-style placeholders of *text*, as a multiset.

    >>> sorted(placeholders("{a!r} of {{b}} and %s"))
    ['%s', '{a!r}']
    """
    fields = Counter()
    for _literal, field, spec, conversion in string.Formatter().parse(text):
        if field is not None:
            fields["{" + field + (f"!{conversion}" if conversion else "")
                   + (f":{spec}" if spec else "") + "}"] += 1
    fields.update(match for match in _PERCENT.findall(text) if match != "%%")
    return fields


@pytest.mark.parametrize("name", TRANSLATED)
def test_each_translation_has_the_placeholders_of_its_english(name):
    wrong = []
    for message in read_catalogue(name):
        if not message.id:
            continue
        english = [message.id] if isinstance(message.id, str) else list(message.id)
        # Chinese has one plural form: it answers both English forms, whose fields are the
        # same but for a count the singular may leave out.
        wanted = {key for text in english for key in placeholders(text)}
        for text in _strings(message):
            if text and set(placeholders(text)) != wanted:
                wrong.append(f"{english[0]!r}: {sorted(placeholders(text))} != {sorted(wanted)}")
            elif text and len(english) == 1 and placeholders(text) != placeholders(english[0]):
                wrong.append(f"{english[0]!r}: {dict(placeholders(text))} != "
                             f"{dict(placeholders(english[0]))}")
    assert not wrong, "\n".join(wrong)


def test_placeholders_tells_a_missing_field():
    assert placeholders("{a} {b}") != placeholders("{a}")
    assert placeholders("{a!r}") != placeholders("{a}")


# --- what the package speaks ---------------------------------------------------------------


def _shipped_translation(name, english):
    """*english* as the compiled catalogue translates it (the stdlib reads the .mo)."""
    with open(mo_path(name), "rb") as handle:
        translation = GNUTranslations(handle).gettext(english)
    assert translation != english, f"no {name} translation of {english!r}"
    return translation


@pytest.fixture
def chinese():
    use_language("zh-CN")
    try:
        yield
    finally:
        use_language(DEFAULT_LANGUAGE)


def test_check_on_an_untouched_stub_answers_in_chinese(chinese, capsys):
    from reasoneval_mini.exercises.registry import EXERCISES
    from reasoneval_mini.feedback import check

    exercise = EXERCISES["kp2_two_subsets"]

    def two_subsets(n):
        raise NotImplementedError()

    report = check(exercise.id, two_subsets)
    printed = capsys.readouterr().out
    english = ("  not attempted yet: replace `raise NotImplementedError()` in "
               "{function} with your code, then run this cell again.")
    expected = _shipped_translation("zh-CN", english).format(function=exercise.answer_name)
    assert report.state == "not attempted"  # the state is an id, the same in every language
    assert expected in printed.splitlines()
    assert "not attempted" not in printed and "point" not in printed
    assert re.search(r"[\u4e00-\u9fff]", printed)


def test_the_same_stub_in_english_is_unchanged(capsys):
    from reasoneval_mini.feedback import check

    def two_subsets(n):
        raise NotImplementedError()

    assert current_language() == DEFAULT_LANGUAGE
    check("kp2_two_subsets", two_subsets)
    printed = capsys.readouterr().out
    assert "  not attempted yet: replace `raise NotImplementedError()` in two_subsets" in printed
    assert not re.search(r"[\u4e00-\u9fff]", printed)


def test_a_failed_check_in_chinese_keeps_the_values_and_translates_the_words(chinese, capsys):
    from reasoneval_mini.feedback import check

    check("kp2_two_subsets", lambda n: [(0, 1)])
    printed = capsys.readouterr().out
    assert _shipped_translation("zh-CN", "  FAIL  {call}").format(call="two_subsets(5)") in printed
    assert _shipped_translation("zh-CN", "different value") in printed
    assert "{{0, 1}}" in printed  # the learner's own value, as in English
    assert "FAIL" not in printed and "expected:" not in printed


def test_language_is_per_thread():
    import threading

    seen = {}

    def other():
        seen["other"] = current_language()

    with language("zh-CN"):
        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
        seen["here"] = current_language()
    assert seen == {"other": DEFAULT_LANGUAGE, "here": "zh-CN"}
    assert current_language() == DEFAULT_LANGUAGE


# --- the grader ----------------------------------------------------------------------------

REGISTRY = '''
from reasoneval_mini.exercises.checks import Exercise, case

EXERCISES = {
    "add": Exercise("add", "ex01_add.ipynb", "add_numbers", 2, "Add", "Add two numbers.",
                    "sums", "Use +.", (case("add_numbers(1, 2)", lambda f: f(1, 2), 3),
                                       case("add_numbers(-1, 1)", lambda f: f(-1, 1), 0))),
    "double": Exercise("double", "ex01_add.ipynb", "double", 1, "Double", "Double it.",
                       "doubles", "Use *.", (case("double(2)", lambda f: f(2), 4),)),
    # Its notebook is never handed in: a missing notebook, said in the student's language.
    "triple": Exercise("triple", "ex02.ipynb", "triple", 1, "Triple", "Triple it.",
                       "triples", "Use * 3.", (case("triple(2)", lambda f: f(2), 6),)),
}


def run_checks(exercise_id, answer, extra_checks=(), **variant_options):
    return [check(answer) for check in EXERCISES[exercise_id].checks + tuple(extra_checks)]
'''
# One of two checks passes (add), and an untouched stub (double).
ANSWERS = ("def add_numbers(a, b):\n    return abs(a) + b\n",
           "def double(x):\n    raise NotImplementedError\n")


def _student_notebook(language_name):
    cells = [{"cell_type": "code", "id": f"c{index}", "metadata": {}, "outputs": [],
              "execution_count": None, "source": source}
             for index, source in enumerate(ANSWERS)]
    metadata = {"reasoneval": {"language": language_name}} if language_name else {}
    return {"nbformat": 4, "nbformat_minor": 5, "metadata": metadata, "cells": cells}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    from reasoneval_mini import cli

    root = tmp_path_factory.mktemp("editions")
    (root / "registry.py").write_text(REGISTRY, encoding="utf-8")
    for student, language_name in (("ann", "zh-CN"), ("bob", None)):
        folder = root / "subs" / student
        folder.mkdir(parents=True)
        (folder / "ex01_add.ipynb").write_text(json.dumps(_student_notebook(language_name)),
                                               encoding="utf-8")
    code = cli.main(["grade", str(root / "subs"), "--out", str(root / "out" / "grades.csv"),
                     "--feedback", str(root / "out" / "feedback"), "--registry",
                     str(root / "registry.py"), "--timeout", "5", "--no-progress",
                     "--workers", "2"])
    assert code == 0
    with open(root / "out" / "grades.csv", encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    feedback = {student: (root / "out" / "feedback" / f"{student}.md").read_text(encoding="utf-8")
                for student in ("ann", "bob")}
    return rows, feedback


def test_the_grader_writes_a_zh_cn_notebooks_feedback_in_chinese(graded):
    _rows, feedback = graded
    ann = feedback["ann"]
    for english, values in (("Total: {score} / {total} points.", {"score": "1", "total": 4}),
                            ("| exercise | status | score |", {}),
                            ("Status: **{status}**, score {score} / {points}.",
                             {"status": _shipped_translation("zh-CN", "failed"), "score": "1",
                              "points": 2}),
                            ("Hint: {hint}", {"hint": "Use +."})):
        assert _shipped_translation("zh-CN", english).format(**values) in ann, english
    # The checks' own reasons, judged in the grader, speak the student's language too.
    assert _shipped_translation("zh-CN", "different value") in ann
    assert _shipped_translation("zh-CN", "not attempted yet: the function still raises "
                                         "NotImplementedError") in ann
    assert _shipped_translation("zh-CN", "no notebook {notebook} in {folder}/{hint}").format(
        notebook="ex02.ipynb", folder="ann", hint="") in ann
    assert "Total:" not in ann and "different value" not in ann and "no notebook" not in ann


def test_the_grader_writes_an_english_notebooks_feedback_in_english(graded):
    _rows, feedback = graded
    bob = feedback["bob"]
    assert "Total: 1 / 4 points." in bob and "Status: **failed**, score 1 / 2." in bob
    assert "different value" in bob and "Hint: Use +." in bob
    assert "no notebook ex02.ipynb in bob/" in bob
    assert not re.search(r"[\u4e00-\u9fff]", bob)


def test_both_editions_get_the_same_ids_statuses_and_scores(graded):
    rows, _feedback = graded
    by_student = {student: [(r["exercise"], r["score"], r["max_score"], r["status"])
                            for r in rows if r["student"] == student] for student in ("ann", "bob")}
    assert by_student["ann"] == by_student["bob"]
    assert by_student["bob"] == [("add", "1", "2", "failed"), ("double", "0", "1", "failed"),
                                 ("triple", "0", "1", "missing")]
