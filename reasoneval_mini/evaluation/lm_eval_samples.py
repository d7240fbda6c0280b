"""lm-evaluation-harness's samples files, read as documents: the model's reply and each filter's verdict.

``lm_eval ... --log_samples`` writes ``samples_<task>_<date>.jsonl``: one
line per document *and filter*, so a GSM8K run with its two filters has two
lines per document. The format was read from lm-eval 0.4.13's own source,
``lm_eval/evaluator.py`` (``evaluate``: the ``example`` dict logged for each
document under each filter key) and ``lm_eval/loggers/evaluation_tracker.py``
(``save_results_samples``: ``arguments`` turned into a dict, every reply
made a ``str``, ``target`` made a ``str``), and checked on logs that lm-eval
0.4.13 wrote itself (``tests/evaluation/lm_eval_task.py``). The keys read here:

* ``doc_id``: the document's number in the task's split (an integer);
* ``target``: ``str(doc_to_target(doc))``; for GSM8K the whole solution,
  whose final answer follows ``####``;
* ``resps``: the model's raw replies, one list per request, one reply per
  repeat: ``[["reply"]]`` for GSM8K (one request, ``repeats: 1``);
* ``filter``: the filter's name (``strict-match``, ``flexible-extract``);
* ``filtered_resps``: what that filter read from the replies, one per request;
* ``metrics``: the names of the metrics; each is also a key of the line with
  this document's value under this filter: ``"exact_match": 1.0``.

The rest (``doc``, ``arguments``, the hashes) is not needed and not checked.

:func:`read_lm_eval_samples` gives one row per *document*, in the shape of a
predictions file's row (``id``, ``prediction``, and ``answer`` when the
target holds ``####``, else ``reference``), with ``harness``: each filter's
reading and verdict, as the file records them.

>>> import json, pathlib, tempfile
>>> line = {"doc_id": 0, "target": "3 + 4 = 7\\n#### 7", "resps": [[" so #### 7"]],
...         "filtered_resps": ["7"], "filter": "strict-match", "metrics": ["exact_match"],
...         "exact_match": 1.0}
>>> path = pathlib.Path(tempfile.mkdtemp()) / "samples_gsm8k.jsonl"
>>> _ = path.write_text(json.dumps(line) + "\\n" + json.dumps(dict(line, filter="flexible-extract")))
>>> [(number, row["id"], sorted(row["harness"])) for number, row in read_lm_eval_samples(path)]
[(1, 0, ['flexible-extract', 'strict-match'])]

Surprising: the target is the whole GSM8K solution, not its number; the
harness's ``exact_match`` strips it to the number with
``regexes_to_ignore`` (``(?s).*#### ``), and this reader leaves it for the
GSM8K protocol to read in the same way (the row's ``answer``).
"""

from reasoneval_mini.answers import GSM8K_MARKER
from reasoneval_mini.evaluation.input_files import BadInputFile, describe_value, read_json_lines
from reasoneval_mini.evaluation.markdown import listed

#: The metric whose value is a filter's verdict on one document (1 right, 0 wrong).
HARNESS_METRIC = "exact_match"
LM_EVAL_KEYS = ("doc_id", "target", "resps", "filtered_resps", "filter", "metrics")


def read_lm_eval_samples(path):
    """``[(line, row)]``, one row per document of *path*, or ``BadInputFile`` listing every bad line.

    A row is ``{"id": doc_id, "prediction": reply, "answer" or "reference":
    target, "harness": {filter: {"line", "read_as", "exact_match"}}}``; its
    line is the document's first. Bad: a line that is not lm-eval's shape
    (a key missing, ``doc_id`` not an integer, ``resps`` not one reply
    ``[["..."]]``, ``filtered_resps`` not one reading, no ``exact_match``
    among the metrics or a value other than 0 or 1), the same document and
    filter twice, the same document with another reply or target than on
    its first line; and, for the whole file, a filter that lacks documents
    the others have.
    """
    usable, bad = read_json_lines(path, LM_EVAL_KEYS)
    documents = {}
    for line, entry in usable:
        problem = _shape_problem(entry)
        if problem is None:
            problem = _add_line(documents, line, entry)
        if problem:
            bad.append((line, problem))
    bad += _filters_missing_documents(documents)
    if bad:
        raise BadInputFile(path, bad)
    return [(document["line"], document["row"]) for document in documents.values()]


def _shape_problem(entry):
    doc_id, resps, read = entry["doc_id"], entry["resps"], entry["filtered_resps"]
    if isinstance(doc_id, bool) or not isinstance(doc_id, int):
        return f"doc_id must be an integer, got {describe_value(doc_id)}"
    if not isinstance(entry["filter"], str) or not entry["filter"]:
        return f"filter must be a filter's name, got {describe_value(entry['filter'])}"
    if not isinstance(entry["target"], str):
        return f"target must be a string, got {describe_value(entry['target'])}"
    # The task's kind first: a multiple-choice log has other replies, and
    # saying so is clearer than describing its log-likelihoods.
    metrics = entry["metrics"]
    if not isinstance(metrics, list) or HARNESS_METRIC not in metrics:
        return (f"metrics must list {HARNESS_METRIC} (a task scored by exact match, as GSM8K), "
                f"got {describe_value(metrics)}")
    if not (isinstance(resps, list) and len(resps) == 1 and isinstance(resps[0], list)
            and len(resps[0]) == 1 and isinstance(resps[0][0], str)):
        replies = (sum(len(r) for r in resps if isinstance(r, list))
                   if isinstance(resps, list) else None)
        if replies and replies > 1:
            return (f"resps holds {replies} replies; only one reply per document is scored "
                    "(a generation task with repeats: 1)")
        return f"resps must be one reply, [[\"...\"]], got {describe_value(resps)}"
    if not isinstance(read, list) or len(read) != 1:
        return f"filtered_resps must hold one reading, got {describe_value(read)}"
    value = entry.get(HARNESS_METRIC)
    if isinstance(value, bool) or value not in (0, 1):
        return (f"{HARNESS_METRIC} must be 0 or 1 (this document's verdict), "
                f"got {describe_value(value)}")
    return None


def _add_line(documents, line, entry):
    """Record *entry* under its document; the problem with it (a repeat, a clash) or ``None``."""
    doc_id, name, target = entry["doc_id"], entry["filter"], entry["target"]
    reply = entry["resps"][0][0]
    document = documents.get(doc_id)
    if document is None:
        reference_key = "answer" if GSM8K_MARKER in target else "reference"
        document = documents[doc_id] = {"line": line, "row": {
            "id": doc_id, "prediction": reply, reference_key: target, "harness": {}}}
    row = document["row"]
    if name in row["harness"]:
        return (f"doc_id {doc_id} with filter {describe_value(name)} again (first on line "
                f"{row['harness'][name]['line']})")
    if reply != row["prediction"] or target != row.get("answer", row.get("reference")):
        what = "reply (resps)" if reply != row["prediction"] else "target"
        return (f"doc_id {doc_id} has another {what} than on line {document['line']}: "
                "two runs in one file? Score each run's file on its own")
    read = entry["filtered_resps"][0]
    row["harness"][name] = {"line": line, "read_as": read if isinstance(read, str) else str(read),
                            HARNESS_METRIC: float(entry[HARNESS_METRIC])}
    return None


def _filters_missing_documents(documents):
    """At most one whole-file problem: the filters without a line for documents that others have."""
    filters = list(dict.fromkeys(name for document in documents.values()
                                 for name in document["row"]["harness"]))
    short = []
    for name in filters:
        missing = [doc_id for doc_id, document in documents.items()
                   if name not in document["row"]["harness"]]
        if missing:
            short.append(f"filter {describe_value(name)} has no line for {len(missing)} "
                         f"documents the other filters have (doc_id {listed(missing, 10)})")
    if not short:
        return []
    more = f"; and {len(short) - 3} more filters" if len(short) > 3 else ""
    return [(None, "; ".join(short[:3]) + more + ": a cut-off file?")]
