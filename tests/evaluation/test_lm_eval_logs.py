"""evaluate answers --format lm-eval: a log lm-evaluation-harness wrote, re-scored by the course's protocol.

The verdicts are checked against the protocol applied here on its own
(``normalised_verdict`` on the reply and the target's final answer), and the
disagreements against a count made here from the file's raw lines. The log
is the one shipped in ``data/`` (made by lm-eval 0.4.13, see
``lm_eval_task.py``) and, where lm-eval is installed, one made by it now.
"""

import importlib.util
import json
import os
import shutil
from collections import Counter

import pytest

from lm_eval_task import DOCUMENTS, make_samples_log, shipped_log
from reasoneval_mini.answers import extract_final_answer
from reasoneval_mini.cli import main
from reasoneval_mini.normalise import RULES, UNITS, normalised_verdict

RULE_SETS = {"none": (), "all": tuple(rule for rule in RULES if rule != UNITS)}
NAMES = {True: "correct", False: "wrong", None: "no_answer"}


def raw_lines(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def score(capsys, path, *extra):
    code = main(["evaluate", "answers", str(path), "--format", "lm-eval", "--no-progress",
                 *extra])
    captured = capsys.readouterr()
    stem = path.name[: -len(".jsonl")]
    folder = path.parent
    report = json.loads((folder / f"{stem}.report.json").read_text()) if code in (0, 1) else None
    results = ([json.loads(line) for line in
                (folder / f"{stem}.results.jsonl").read_text().splitlines()]
               if code in (0, 1) else None)
    return code, captured, report, results


def protocol_verdict(line, rules):
    """The course's protocol on one lm-eval line, applied here: reply and target's final answer."""
    return NAMES[normalised_verdict(line["resps"][0][0], extract_final_answer(line["target"]),
                                    rules=rules)]


def expected_kind(line, verdict):
    harness_right = line["exact_match"] == 1
    if harness_right and verdict == "no_answer":
        return "format"
    if harness_right and verdict == "wrong":
        return "filter_false_positive"
    if not harness_right and verdict == "correct":
        return "filter_false_negative"
    return "agree"


@pytest.fixture
def log(tmp_path):
    path = tmp_path / shipped_log().name
    shutil.copy(shipped_log(), path)
    return path


def check_against_the_protocol(capsys, path, rule_set):
    """Every verdict, every disagreement count and every filter's score, each from the raw lines."""
    rules = RULE_SETS[rule_set]
    code, _, report, results = score(capsys, path, "--rules", rule_set)
    assert code == 0
    lines = raw_lines(path)
    by_doc = {}
    for line in lines:
        by_doc.setdefault(line["doc_id"], line)
    assert [row["id"] for row in results] == list(by_doc)  # each document once, in file order
    for row in results:
        line = by_doc[row["id"]]
        assert row["verdict"] == protocol_verdict(line, rules), row
        assert row["raw_verdict"] == protocol_verdict(line, ()), row
        assert row["reference"] == extract_final_answer(line["target"])
    ours = {row["id"]: row["verdict"] for row in results}
    counted = Counter((line["filter"], expected_kind(line, ours[line["doc_id"]])) for line in lines)
    filters = list(dict.fromkeys(line["filter"] for line in lines))
    assert list(report["harness"]) == filters
    for name in filters:
        kinds = report["harness"][name]["kinds"]
        assert {kind: n for kind, n in kinds.items() if n} == {
            kind: n for (f, kind), n in counted.items() if f == name}
        for kind, ids in report["harness"][name]["ids"].items():  # every disagreement listed
            assert ids == [line["doc_id"] for line in lines if line["filter"] == name
                           and expected_kind(line, ours[line["doc_id"]]) == kind]
        values = [line["exact_match"] for line in lines if line["filter"] == name]
        assert report["harness"][name]["harness_score"] == pytest.approx(sum(values) / len(values))
    return report, results


@pytest.mark.parametrize("rule_set", ["none", "all"])
def test_every_document_of_a_log_lm_eval_wrote_gets_the_course_protocols_verdict(
        log, capsys, rule_set):
    report, _ = check_against_the_protocol(capsys, log, rule_set)
    assert report["budget"]["items"] == len(DOCUMENTS)
    assert report["budget"]["rules"] == list(RULE_SETS[rule_set])


def test_the_disagreements_of_the_issue_are_found_on_the_log_lm_eval_wrote(log, capsys):
    _, _, report, results = score(capsys, log, "--rules", "currency")
    by_reply = {row["id"]: row for row in results}
    replies = {line["doc_id"]: line["resps"][0][0] for line in raw_lines(log)}

    def doc(reply_part):
        (doc_id,) = [i for i, reply in replies.items() if reply_part in reply]
        return by_reply[doc_id]

    halves = doc("#### 9/2")  # both filters wrong against 4.5; the course: right
    assert halves["verdict"] == "correct"
    assert {name: (r["read_as"], r["kind"]) for name, r in halves["harness"].items()} == {
        "strict-match": ("9", "filter_false_negative"),
        "flexible-extract": ("2", "filter_false_negative")}
    dollars = doc("$15.00")  # flexible reads "$15.00" and compares it with "15" as text
    assert dollars["harness"]["flexible-extract"]["read_as"] == "$15.00"
    assert (dollars["raw_verdict"], dollars["verdict"], dollars["rules_fired"]) == (
        "no_answer", "correct", ["currency"])
    unmarked = doc("The answer is 18.")  # flexible takes the last number of a reply with no marker
    assert unmarked["verdict"] == "no_answer"
    assert unmarked["harness"]["flexible-extract"]["kind"] == "format"
    revised = doc("wait, no.")  # strict-match takes the first marker, the protocol the last
    assert (revised["read_as"], revised["harness"]["strict-match"]["kind"]) == (
        "6", "filter_false_positive")
    markdown = (log.parent / (log.name[: -len(".jsonl")] + ".report.md")).read_text()
    assert "harness right, course: wrong (a false positive of the filter): first" in markdown


def test_each_line_of_the_results_names_the_rules_that_fired_for_that_item(log, capsys):
    _, _, report, results = score(capsys, log, "--rules", "all")
    fired = Counter(rule for row in results for rule in row["rules_fired"])
    assert {rule: n for rule, n in report["rules_fired"].items() if n} == dict(fired)
    assert fired == {"currency": 1, "boxed": 1}  # $15.00 and \boxed{42}
    assert set(results[0]) == {"id", "line", "verdict", "raw_verdict", "read_as", "reference",
                               "rules_fired", "harness"}


@pytest.mark.skipif(importlib.util.find_spec("lm_eval") is None and os.environ.get("CI") != "true",
                    reason='lm-eval is not installed (pip install -e ".[lm-eval]"); the shipped '
                           "log made by lm-eval 0.4.13 is tested instead")
def test_a_log_made_now_by_the_installed_lm_eval_is_scored_by_the_protocol(tmp_path, capsys):
    made = make_samples_log(tmp_path / "run")
    check_against_the_protocol(capsys, made, "all")
    # The format read here is the one the installed lm-eval writes: the same keys, the same
    # replies, readings and verdicts as in the shipped log (only the hashes' inputs and
    # the time differ).
    keys = ("doc_id", "filter", "target", "resps", "filtered_resps", "metrics", "exact_match")
    now = [{key: line[key] for key in keys} for line in raw_lines(made)]
    shipped = [{key: line[key] for key in keys} for line in raw_lines(shipped_log())]
    assert now == shipped
    assert set(raw_lines(made)[0]) == set(raw_lines(shipped_log())[0])


def write_lines(path, lines):
    path.write_text("".join(line if isinstance(line, str) else json.dumps(line) + "\n"
                            for line in lines), encoding="utf-8")
    return path


def assert_refused(tmp_path, code, err):
    assert code == 2
    assert err.startswith("reasoneval-course evaluate: error: ")
    assert not list(tmp_path.glob("*.report.*")) and not list(tmp_path.glob("*.results.jsonl"))


def test_lines_that_are_not_lm_evals_shape_are_each_named_by_their_number(log, tmp_path, capsys):
    lines = raw_lines(log)
    lines[1]["resps"] = [[lines[1]["resps"][0][0], "a second reply"]]
    del lines[3]["filtered_resps"]
    lines[4]["exact_match"] = 0.5
    lines[5]["doc_id"] = "5"
    lines[6]["metrics"] = ["acc"]
    lines[7]["resps"] = "not a list"
    lines[8] = "{not json\n"
    bad = write_lines(tmp_path / "bad.jsonl", lines)
    code, captured, _, _ = score(capsys, bad)
    err = captured.err
    assert_refused(tmp_path, code, err)
    assert "7 bad lines" in err
    assert "line 2: resps holds 2 replies; only one reply per document is scored" in err
    assert "line 4: missing filtered_resps; each line needs doc_id, target, resps" in err
    assert "line 5: exact_match must be 0 or 1 (this document's verdict), got 0.5" in err
    assert 'line 6: doc_id must be an integer, got "5"' in err
    assert ('line 7: metrics must list exact_match (a task scored by exact match, as GSM8K), '
            'got ["acc"]') in err
    assert 'line 8: resps must be one reply, [["..."]], got "not a list"' in err
    assert "line 9: not JSON" in err
    assert "line 1:" not in err and "line 3:" not in err


def test_a_document_and_filter_twice_is_named_with_its_first_line(log, tmp_path, capsys):
    lines = raw_lines(log)
    bad = write_lines(tmp_path / "twice.jsonl", lines + [lines[2]])
    code, captured, _, _ = score(capsys, bad)
    assert_refused(tmp_path, code, captured.err)
    assert (f'line {len(lines) + 1}: doc_id 2 with filter "strict-match" again (first on line 3)'
            in captured.err)


def test_a_document_with_another_reply_under_another_filter_is_refused(log, tmp_path, capsys):
    lines = raw_lines(log)
    later = next(i for i, line in enumerate(lines) if line["doc_id"] == 0 and i > 0)
    lines[later]["resps"] = [["#### 8"]]
    code, captured, _, _ = score(capsys, write_lines(tmp_path / "mixed.jsonl", lines))
    assert_refused(tmp_path, code, captured.err)
    assert (f"line {later + 1}: doc_id 0 has another reply (resps) than on line 1: two runs in "
            "one file?") in captured.err


def test_a_filter_that_lacks_documents_is_named_for_the_whole_file(log, tmp_path, capsys):
    lines = raw_lines(log)[:-2]  # the last two flexible-extract lines cut off
    code, captured, _, _ = score(capsys, write_lines(tmp_path / "cut.jsonl", lines))
    assert_refused(tmp_path, code, captured.err)
    assert ('filter "flexible-extract" has no line for 2 documents the other filters have '
            "(doc_id 8, 9): a cut-off file?") in captured.err


def test_an_lm_eval_log_given_as_predictions_says_to_give_format_lm_eval(log, capsys):
    code = main(["evaluate", "answers", str(log)])
    err = capsys.readouterr().err
    assert code == 2
    assert "line 1: missing id, prediction, reference or answer" in err
    assert "this looks like lm-evaluation-harness's samples file: give --format lm-eval" in err


def test_a_target_that_is_not_a_number_is_unscored_and_named(log, tmp_path, capsys):
    lines = raw_lines(log)
    for line in lines:
        if line["doc_id"] == 9:
            line["target"] = "Ten eggs.\n#### ten"
    code, captured, report, results = score(capsys, write_lines(tmp_path / "broken.jsonl", lines))
    assert code == 1 and "1 references are not numbers" in captured.err
    assert results[-1]["verdict"] == "reference_error"
    assert {name: entry["kinds"]["unscored"] for name, entry in report["harness"].items()} == {
        "strict-match": 1, "flexible-extract": 1}
    assert report["accuracy"]["items"] == len(DOCUMENTS) - 1


def test_the_guides_example_holds_a_score_that_matches_is_not_a_protocol_that_matches(log, capsys):
    _, _, report, _ = score(capsys, log, "--rules", "all")
    flexible = report["harness"]["flexible-extract"]
    assert report["accuracy"]["estimate"] == flexible["harness_score"] == 0.6
    kinds = flexible["kinds"]
    assert kinds["format"] + kinds["filter_false_positive"] == kinds["filter_false_negative"] == 2
