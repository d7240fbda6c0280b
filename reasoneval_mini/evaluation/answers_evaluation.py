"""``evaluate answers``, from files to reports: read and check everything, score, write.

:func:`evaluate_answers_file` is the whole command without its argument
parsing. The input is a predictions file (:data:`PREDICTIONS`) or an
lm-evaluation-harness samples file (:data:`LM_EVAL`); either way each item
is scored once by the course's protocol and the declared rules, and three
files are written beside the input (or in *out_dir*): ``<name>.report.md``,
``<name>.report.json`` and ``<name>.results.jsonl`` (one line per item:
``id``, ``line``, ``verdict``, ``raw_verdict``, ``read_as``, ``reference``,
``rules_fired``, and for lm-eval each filter's reading, verdict and
disagreement kind).
"""

import json
from pathlib import Path

from reasoneval_mini.evaluation.answers_report import (
    answers_report,
    compare_answers,
    render_answers_report,
)
from reasoneval_mini.evaluation.budget import environment
from reasoneval_mini.evaluation.final_answers import EXTRACTIONS, read_predictions, score_predictions
from reasoneval_mini.evaluation.harness_agreement import mark_disagreements
from reasoneval_mini.evaluation.lm_eval_samples import HARNESS_METRIC, read_lm_eval_samples
from reasoneval_mini.evaluation.output_files import encodable, output_paths, write_reports
from reasoneval_mini.normalise import NO_RULES, declared_rules
from reasoneval_mini.support.files import write_atomically
from reasoneval_mini.support.parallel import progress_bar

PREDICTIONS, LM_EVAL = "predictions", "lm-eval"
#: The input formats: ours, and lm-evaluation-harness's ``--log_samples`` files.
FORMATS = (PREDICTIONS, LM_EVAL)
_READERS = {PREDICTIONS: read_predictions, LM_EVAL: read_lm_eval_samples}
_FILE_KEYS = {PREDICTIONS: "predictions_file", LM_EVAL: "lm_eval_samples_file"}
#: The keys of each line of the results file, in order (``harness`` for lm-eval only).
RESULT_KEYS = ("id", "line", "verdict", "raw_verdict", "read_as", "reference", "rules_fired",
               "harness")


def evaluate_answers_file(path, *, file_format=PREDICTIONS, extract="gsm8k", rules=(NO_RULES,),
                          units=(), compare=None, out_dir=None, progress=True):
    """Score *path* (and *compare*, read first), write reports and results; ``(report, paths)``.

    *rules* names the declared rules or rule sets
    (:func:`~reasoneval_mini.normalise.declared_rules`; none by default),
    *units* the units the :data:`~reasoneval_mini.normalise.UNITS` rule may
    drop. Both files are read and checked before anything is scored, in
    *file_format*: ``BadInputFile`` lists every bad line; ``ValueError`` for
    an unknown format, extraction, rule or unit, and when the two files do
    not have the same ids (named).
    """
    if file_format not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {file_format!r}")
    if extract not in EXTRACTIONS:
        raise ValueError(f"extract must be one of {', '.join(EXTRACTIONS)}, got {extract!r}")
    in_force = declared_rules(rules, units)
    units = tuple(units)
    read = _READERS[file_format]
    rows = read(path)
    other_rows = read(compare) if compare else None
    bar = progress_bar(len(rows), "scoring", "item", progress)
    try:
        items = score_predictions(rows, extract, in_force, units, progress=bar)
    finally:
        if bar is not None:
            bar.close()
    mark_disagreements(items)
    budget = {_FILE_KEYS[file_format]: str(path), "format": file_format,
              "extract": extract, "rules": list(in_force), "units": list(units),
              "comparison": "exact rational equivalence (answers.numeric_equivalence)",
              **({"harness_verdicts": f"{HARNESS_METRIC}, as the file records it"}
                 if file_format == LM_EVAL else {}),
              **environment()}
    report = answers_report(items, budget)
    if other_rows is not None:
        report["comparison"] = compare_answers(
            items, score_predictions(other_rows, extract, in_force, units),
            names=(Path(path).name, Path(compare).name))
    paths = output_paths(path, out_dir)
    write_atomically(paths["results"], "".join(
        encodable(json.dumps({key: item[key] for key in RESULT_KEYS if key in item},
                             ensure_ascii=False)) + "\n" for item in items.values()))
    write_reports(report, paths, render_answers_report)
    return report, paths
