"""The class report: its numbers against counts made by hand, its figures, its determinism."""

from fractions import Fraction

import pytest

from reasoneval_mini.grading.statuses import GRADE_STATUSES
from submission_class import REGISTRY, add_notebook, grade, words_notebook, write_notebook

from reasoneval_mini.grading.class_report import (
    DISTRIBUTION_FIGURE, REPORT_NAME, STATUS_FIGURE, check_stats, hardest_checks,
    similar_answers, write_class_report)
from reasoneval_mini.grading.grader import Grade
from reasoneval_mini.grading.statuses import (
    GRADE_ERROR, GRADE_FAILED, GRADE_MISSING, GRADE_PASSED, GRADE_TIMEOUT)

pytestmark = pytest.mark.slow  # whole classes graded for the report

pytest.importorskip("matplotlib")

EXERCISES = REGISTRY.EXERCISES  # add: 2 checks, 2 points; count_words: 3 checks; shout: 1


def read_class(root):
    """The class as the grader reads it into memory before any student code runs."""
    from reasoneval_mini.grading.submissions import discover_students, read_student
    return [read_student(root / name, EXERCISES) for name in discover_students(root)]


def checks(*outcomes):
    """outcomes: True (passed), a str (the wrong value returned), None (the untouched stub)."""
    return tuple({"name": f"c{i}", "passed": outcome is True, "attempted": outcome is not None,
                  "actual": "ok" if outcome is True else ("NotImplementedError"
                                                          if outcome is None else outcome)}
                 for i, outcome in enumerate(outcomes))


# Four students, by hand:
#   ann: add passed (2), count_words passed (3), shout passed (1)    -> 6
#   bob: add 1 of 2 (1), count_words 1 of 3 (1), shout timeout (0)   -> 2
#   cy:  add stub (0), count_words 0 of 3 (0), shout missing (0)     -> 0
#   dee: add error (0), count_words 2 of 3 (2), shout passed (1)     -> 3
GRADES = [
    Grade("ann", "add", Fraction(2), 2, GRADE_PASSED, "", checks(True, True)),
    Grade("ann", "count_words", Fraction(3), 3, GRADE_PASSED, "", checks(True, True, True)),
    Grade("ann", "shout", Fraction(1), 1, GRADE_PASSED, "", checks(True)),
    Grade("bob", "add", Fraction(1), 2, GRADE_FAILED, "", checks(True, "2")),
    Grade("bob", "count_words", Fraction(1), 3, GRADE_FAILED, "", checks(True, "1", "6")),
    Grade("bob", "shout", Fraction(0), 1, GRADE_TIMEOUT, ""),
    Grade("cy", "add", Fraction(0), 2, GRADE_FAILED, "", checks(None, None)),
    Grade("cy", "count_words", Fraction(0), 3, GRADE_FAILED, "", checks("-1", "1", "-1")),
    Grade("cy", "shout", Fraction(0), 1, GRADE_MISSING, ""),
    Grade("dee", "add", Fraction(0), 2, GRADE_ERROR, ""),
    Grade("dee", "count_words", Fraction(2), 3, GRADE_FAILED, "", checks(True, "1", True)),
    Grade("dee", "shout", Fraction(1), 1, GRADE_PASSED, "", checks(True)),
]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    folder = tmp_path_factory.mktemp("report")
    return folder, write_class_report(GRADES, EXERCISES, folder).read_text(encoding="utf-8")


def test_the_summary_gives_mean_median_lowest_and_highest_of_the_totals(report):
    # totals 6, 2, 0, 3: mean 11/4, median (2 + 3) / 2
    assert "Total score: mean 2.75, median 2.5, lowest 0, highest 6 (of 6)." in report[1]


def test_the_status_table_counts_each_status_per_exercise(report):
    # columns: points, then one per grade status in GRADE_STATUSES order, then the share
    assert "| add | 2 | 1 | 2 | 0 | 1 | 0 | 0 | 25% |" in report[1]
    assert "| count_words | 3 | 1 | 3 | 0 | 0 | 0 | 0 | 25% |" in report[1]
    assert "| shout | 1 | 2 | 0 | 1 | 0 | 1 | 0 | 50% |" in report[1]
    assert "| exercise | points | " + " | ".join(GRADE_STATUSES) + " | share passed |" in report[1]


def test_each_check_shows_how_many_of_all_students_pass_it(report):
    # count_words c1: ann only; c2: ann and dee; add c0: ann and bob (cy's stub, dee's error fail)
    assert "| count_words | c1 | 1 of 4 | 25% |" in report[1]
    assert "| count_words | c2 | 2 of 4 | 50% |" in report[1]
    assert "| add | c0 | 2 of 4 | 50% |" in report[1]


def test_the_hardest_check_comes_first_with_its_most_common_wrong_values(report):
    hardest = hardest_checks(check_stats(GRADES, EXERCISES))
    assert (hardest[0].exercise, hardest[0].name) == ("add", "c1")  # 1 of 4, first in course order
    assert ("count_words", "c1") == (hardest[1].exercise, hardest[1].name)
    assert hardest[1].wrong_outputs == (("1", 3),)
    assert "   - 3 × got `1`" in report[1]


def test_stubs_and_unrun_exercises_are_counted_apart_from_wrong_values():
    add_c0 = next(s for s in check_stats(GRADES, EXERCISES) if (s.exercise, s.position) == ("add", 0))
    assert (add_c0.passed, add_c0.not_attempted, add_c0.not_run, add_c0.wrong_outputs) == (2, 1, 1, ())


def test_both_figures_are_png_files_named_in_the_report(report):
    folder, text = report
    for name in (DISTRIBUTION_FIGURE, STATUS_FIGURE):
        assert (folder / name).read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
        assert f"]({name})" in text


def test_every_figure_has_a_one_line_description_after_it(report):
    lines = report[1].splitlines()
    for number, line in enumerate(lines):
        if line.startswith("!["):
            assert lines[number + 2].startswith("Figure: ")


def test_the_same_grades_give_byte_identical_files(tmp_path):
    write_class_report(GRADES, EXERCISES, tmp_path / "one")
    write_class_report(GRADES, EXERCISES, tmp_path / "two")
    for name in (REPORT_NAME, DISTRIBUTION_FIGURE, STATUS_FIGURE):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()


LONG_WORDS = ("def count_words(text):\n    words = []\n    for part in text.split(' '):\n"
              "        if part != '':\n            words.append(part)\n    return len(words)\n")
RENAMED = ("def count_words(sentence):\n    # my own version\n    found = []\n"
           "    for piece in sentence.split(' '):\n        if piece != '':\n"
           "            found.append(piece)\n\n    return len(found)\n")
DIFFERENT = ("def count_words(text):\n    total, inside = 0, False\n    for char in text:\n"
             "        if char.isspace():\n            inside = False\n"
             "        elif not inside:\n            total, inside = total + 1, True\n"
             "    return total\n")


def test_similar_answers_pair_a_renamed_copy_and_not_a_different_solution(tmp_path):
    for student, source in (("ann", LONG_WORDS), ("bob", RENAMED), ("cy", DIFFERENT)):
        (tmp_path / student).mkdir()
        write_notebook(tmp_path / student / "ex02_words.ipynb", words_notebook(source))
    grades = [Grade(s, "count_words", Fraction(3), 3, GRADE_PASSED, "", checks(True, True, True))
              for s in ("ann", "bob", "cy")]
    pairs, skipped = similar_answers(read_class(tmp_path), grades, EXERCISES)
    assert [(p.exercise, p.first, p.second, p.ratio) for p in pairs] == [
        ("count_words", "ann", "bob", 1.0)] and skipped == ()


def test_untouched_stubs_are_never_listed_as_similar(tmp_path):
    stub = "def count_words(text):\n    " + "\n    ".join(f"x{i} = {i}" for i in range(10)) \
        + "\n    raise NotImplementedError\n"
    for student in ("ann", "bob"):
        (tmp_path / student).mkdir()
        write_notebook(tmp_path / student / "ex02_words.ipynb", words_notebook(stub))
    grades = [Grade(s, "count_words", Fraction(0), 3, GRADE_FAILED, "", checks(None, None, None))
              for s in ("ann", "bob")]
    assert similar_answers(read_class(tmp_path), grades, EXERCISES) == ([], ())


def test_grade_with_class_report_writes_the_report_marking_similarity_as_a_hint(tmp_path, capsys):
    for student in ("ann", "bob"):
        (tmp_path / "submissions" / student).mkdir(parents=True)
        write_notebook(tmp_path / "submissions" / student / "ex01_add.ipynb", add_notebook())
        write_notebook(tmp_path / "submissions" / student / "ex02_words.ipynb",
                       words_notebook(LONG_WORDS if student == "ann" else RENAMED))
    assert grade(tmp_path / "submissions", tmp_path, "--class-report", str(tmp_path / "report")) == 0
    text = (tmp_path / "report" / REPORT_NAME).read_text(encoding="utf-8")
    assert "## Answers that look alike (a hint, not a verdict)" in text
    assert "- `count_words`: ann and bob, 100% alike" in text
    assert "class_report.md and its figures" in capsys.readouterr().out


def test_a_class_report_path_that_is_a_file_is_refused_before_grading(tmp_path, capsys):
    (tmp_path / "submissions" / "ann").mkdir(parents=True)
    (tmp_path / "report.md").write_text("mine\n", encoding="utf-8")
    assert grade(tmp_path / "submissions", tmp_path, "--class-report", str(tmp_path / "report.md")) == 2
    assert "is a file; expected a folder" in capsys.readouterr().err
    assert not (tmp_path / "grades.csv").exists()


def test_every_grade_status_has_its_own_colour():
    from reasoneval_mini.grading.class_report import STATUS_COLOURS
    from reasoneval_mini.grading.statuses import GRADE_STATUSES

    assert set(STATUS_COLOURS) == set(GRADE_STATUSES)
    assert len(set(STATUS_COLOURS.values())) == len(GRADE_STATUSES)


# -- the similarity pass: fingerprints, then a close comparison ---------------------------------

def _variant(seed):
    """A count_words answer: one of 6 independent designs, with its names renamed per student."""
    import random
    rng = random.Random(seed)
    names = [f"n{seed}_{i}" for i in range(4)]
    designs = [LONG_WORDS, RENAMED, DIFFERENT,
               "def count_words(text):\n    import re\n    found = re.findall(r'\\S+', text)\n"
               "    if not found:\n        return 0\n    return len([w for w in found if w])\n",
               "def count_words(text):\n    n = 0\n    prev = ' '\n    for c in text:\n"
               "        if prev == ' ' and c != ' ':\n            n += 1\n        prev = c\n    return n\n",
               "def count_words(text):\n    parts = text.replace('\\t', ' ').split(' ')\n"
               "    kept = list(filter(None, parts))\n    total = 0\n    for _ in kept:\n"
               "        total += 1\n    return total\n"]
    source = designs[rng.randrange(len(designs))]
    for old, new in zip(("text", "words", "total", "found"), names):
        source = re.sub(rf"\b{old}\b", new, source) if old != "text" else source
    if rng.random() < 0.5:  # a small edit: an extra statement
        source = source.replace("\n    ", "\n    unused = 0\n    ", 1)
    return source


import re  # noqa: E402 - used by _variant above


def test_fingerprint_buckets_find_the_same_pairs_as_comparing_every_pair():
    import difflib
    import itertools
    from reasoneval_mini.grading.similarity import (
        MIN_ANSWER_TOKENS, SIMILARITY_THRESHOLD, normalised_tokens, similar_in_exercise)
    by_student = {f"s{i:03d}": _variant(i) for i in range(120)}
    tokens = {s: normalised_tokens(src) for s, src in by_student.items()}
    reference = sorted(
        (a, b) for a, b in itertools.combinations(sorted(tokens), 2)
        if len(tokens[a]) >= MIN_ANSWER_TOKENS and len(tokens[b]) >= MIN_ANSWER_TOKENS
        and difflib.SequenceMatcher(None, tokens[a], tokens[b], autojunk=False).ratio()
        >= SIMILARITY_THRESHOLD)
    found = sorted((p.first, p.second) for p in similar_in_exercise("count_words", by_student))
    assert len(reference) > 100 and found == reference


def test_exercises_with_a_single_right_answer_are_skipped_and_named(tmp_path):
    from types import SimpleNamespace as NS
    from reasoneval_mini.grading.submissions import discover_students, read_student
    exercises = {"choose": NS(id="choose", notebook="ex01_add.ipynb", answer_name="choice",
                              points=1)}
    choice = ("def choice():\n    return {'python_version', 'time_limit', 'memory_limit', "
              "'network_access', 'fresh_process', 'clean_workdir'}\n")
    for student in ("ann", "bob"):
        (tmp_path / student).mkdir()
        write_notebook(tmp_path / student / "ex01_add.ipynb", [
            {"cell_type": "code", "metadata": {}, "source": choice, "outputs": [],
             "execution_count": None}])
    submissions = [read_student(tmp_path / s, exercises) for s in discover_students(tmp_path)]
    grades = [Grade(s, "choose", Fraction(1), 1, GRADE_PASSED, "", checks(True))
              for s in ("ann", "bob")]
    assert similar_answers(submissions, grades, exercises) == ([], ("choose",))
    text = write_class_report(grades, exercises, tmp_path / "r", submissions).read_text(
        encoding="utf-8")
    assert "Skipped, because they have a single right answer" in text and "`choose`" in text


def test_the_hardest_checks_are_spread_one_per_exercise():
    hardest = hardest_checks(check_stats(GRADES, EXERCISES))
    assert [h.exercise for h in hardest] == ["add", "count_words", "shout"]


# -- the similarity pass is bounded whatever the answers hold (issue 24, attack 8) ------------

def _long_pair(statements):
    """Two near-identical answers of *statements* lines (every 97th line differs)."""
    import random
    rng = random.Random(1)
    lines = ["def count_words(a, b):"] + [f"    a = a + b * {rng.randrange(3)}"
                                          for _ in range(statements)] + ["    return a"]
    edited = [("    b = b - a" if i % 97 == 1 else line) for i, line in enumerate(lines)]
    return "\n".join(lines) + "\n", "\n".join(edited) + "\n"


def test_two_near_identical_long_answers_are_compared_on_a_bounded_number_of_tokens(monkeypatch):
    # 60 KB each took difflib 100 s per pair; the size here took 2 s before the bound.
    import difflib

    from reasoneval_mini.grading import similarity
    from reasoneval_mini.grading.similarity import MAX_COMPARED_TOKENS, similar_in_exercise
    read = []

    class Recording(difflib.SequenceMatcher):
        def __init__(self, isjunk, a, b, autojunk):
            read.append((len(a), len(b)))
            super().__init__(isjunk, a, b, autojunk=autojunk)

    monkeypatch.setattr(similarity.difflib, "SequenceMatcher", Recording)
    first, second = _long_pair(600)
    [pair] = similar_in_exercise("count_words", {"ann": first, "bob": second})
    assert (pair.first, pair.second) == ("ann", "bob") and pair.ratio >= 0.9
    assert read and max(max(sizes) for sizes in read) <= MAX_COMPARED_TOKENS
    assert len(similarity.normalised_tokens(first)) > 4 * MAX_COMPARED_TOKENS


def test_the_lexer_is_the_standard_tokenize_with_layout_and_local_names_normalised():
    import io
    import tokenize

    from reasoneval_mini.grading.similarity import normalised_tokens
    source = "def f(x):\n    # note\n    return x.real + len(x)  # end\n"
    reference = [t.string for t in tokenize.generate_tokens(io.StringIO(source).readline)
                 if t.type in (tokenize.NAME, tokenize.OP, tokenize.NUMBER)]
    assert reference == ["def", "f", "(", "x", ")", ":", "return", "x", ".", "real", "+",
                         "len", "(", "x", ")"]
    assert normalised_tokens(source) == ["def", "v0", "(", "v1", ")", ":", "INDENT", "return",
                                         "v1", ".", "real", "+", "len", "(", "v1", ")", "DEDENT"]


@pytest.mark.parametrize("ending", ["    total = f(1,\n", "    s = '''open\n    more\n",
                                    "    s = 'open\n    return $ ?\n"])
def test_a_copied_answer_that_does_not_tokenize_to_the_end_is_still_found(ending):
    from reasoneval_mini.grading.similarity import normalised_tokens, similar_in_exercise
    body = "".join(f"    n{i} = n{i - 1} + text.count('{chr(97 + i % 26)}')\n"
                   for i in range(1, 20))
    mine = "def count_words(text):\n    n0 = 0\n" + body + ending
    theirs = re.sub(r"\bn(\d+)\b", r"k\1", mine)  # every local name changed
    tokens = normalised_tokens(mine)
    assert tokens[-1] == "DEDENT" and len(tokens) > 100  # the tokens before the break are kept
    [pair] = similar_in_exercise("count_words", {"ann": mine, "bob": theirs})
    assert pair.ratio == 1.0
