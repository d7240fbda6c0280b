"""A tiny local GSM8K-like task, run through lm-evaluation-harness itself, to make a real samples log.

The task has GSM8K's generation settings, metric and two filters, as
lm-eval 0.4.13's ``lm_eval/tasks/gsm8k/gsm8k.yaml`` declares them
(``exact_match`` with ``regexes_to_ignore``; ``strict-match``: the first
``#### number``; ``flexible-extract``: the last number-like run), and ten
documents written for the course. The model is canned: a subclass of
lm-eval's own ``lm_eval.api.model.LM`` that answers each question with the
reply written beside it, so no model is downloaded and nothing touches the
network (``HF_DATASETS_OFFLINE``, ``HF_HUB_OFFLINE``; the data are a local
JSON Lines file read by the ``json`` loader of ``datasets``).

The replies are the failure kinds the issue found: ``#### 9/2`` against 4.5,
``$15.00`` against 15, a reply without a marker, a revised answer (two
markers), a number after the marker in a sentence, ``\\boxed{}``.

``python tests/evaluation/lm_eval_task.py`` (with ``pip install -e
".[lm-eval]"``) writes the log again into ``tests/evaluation/data/`` under
the name lm-eval gives it; the shipped log was made that way with lm-eval
0.4.13 on Python 3.11.
"""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"
TASK = "tiny_gsm8k"

#: (question, GSM8K-style answer, the canned model's reply).
DOCUMENTS = [
    ("Tom has 3 apples and gets 4 more. How many apples?", "3 + 4 = 7\n#### 7",
     " 3 + 4 = 7\n#### 7"),
    ("Nine cakes are shared by two. How many cakes each?", "9 / 2 = 4.5\n#### 4.5",
     " Nine split in two.\n#### 9/2"),
    ("A book costs 15 dollars. What does it cost?", "It costs 15.\n#### 15",
     " It costs $15.00.\n#### $15.00"),
    ("Ann is 6 years older than Bo, who is 12. How old is Ann?", "6 + 12 = 18\n#### 18",
     " The answer is 18."),
    ("Five birds sit on a wire. How many birds?", "#### 5", " #### 5 wait, no.\n#### 6"),
    ("Six films of 180 minutes. How many minutes?", "6 * 180 = 1080\n#### 1080",
     " 6 * 180 = 1,080\n#### 1,080"),
    ("Joe has 9 marbles. How many marbles has Joe?", "#### 9",
     " #### 12\nThat is 3 more than 9."),
    ("What is 6 times 7?", "6 * 7 = 42\n#### 42", " So \\boxed{42}.\n#### \\boxed{42}"),
    ("It is 2 degrees and falls by 5. What is it now?", "2 - 5 = -3\n#### -3",
     " 2 - 5 = -3\n#### -3"),
    ("Ten eggs in a box. How many eggs?", "#### 10", " #### 11"),
]

# GSM8K's settings (lm-eval 0.4.13, tasks/gsm8k/gsm8k.yaml), with no few-shot
# examples and a local data file.
TASK_YAML = r"""
task: {task}
dataset_path: json
dataset_kwargs:
  data_files:
    test: {data}
output_type: generate_until
test_split: test
doc_to_text: "Question: {{{{question}}}}\nAnswer:"
doc_to_target: "{{{{answer}}}}"
metric_list:
  - metric: exact_match
    aggregation: mean
    higher_is_better: true
    ignore_case: true
    ignore_punctuation: false
    regexes_to_ignore:
      - ","
      - "\\$"
      - "(?s).*#### "
      - "\\.$"
generation_kwargs:
  until:
    - "Question:"
  do_sample: false
  temperature: 0.0
repeats: 1
num_fewshot: 0
filter_list:
  - name: "strict-match"
    filter:
      - function: "regex"
        regex_pattern: "#### (\\-?[0-9\\.\\,]+)"
      - function: "take_first"
  - name: "flexible-extract"
    filter:
      - function: "regex"
        group_select: -1
        regex_pattern: "(-?[$0-9.,]{{2,}})|(-?[0-9]+)"
      - function: "take_first"
metadata:
  version: 3.0
"""

# Run in a fresh interpreter: lm-eval and datasets read the offline settings
# when they are imported, and their logging stays out of the test process.
RUN = textwrap.dedent('''
    import json, sys
    from lm_eval import simple_evaluate
    from lm_eval.api.model import LM
    from lm_eval.loggers import EvaluationTracker
    from lm_eval.tasks import TaskManager

    task_folder, out, task = sys.argv[1:4]
    replies = json.loads(sys.argv[4])

    class CannedLM(LM):
        """lm-eval's model interface, answering each question with its written reply."""

        def generate_until(self, requests, disable_tqdm=False):
            return [next(reply for question, reply in replies if question in request.args[0])
                    for request in requests]

        def loglikelihood(self, requests, disable_tqdm=False):
            raise NotImplementedError("a generation task only")

        loglikelihood_rolling = loglikelihood

    tracker = EvaluationTracker(output_path=out)
    # include_defaults=False: index only this task's folder. Indexing lm-eval's own
    # thousands of task files (which this run never loads) took over a minute of CPU.
    manager = TaskManager(include_path=task_folder, include_defaults=False)
    results = simple_evaluate(model=CannedLM(), tasks=[task], log_samples=True,
                              task_manager=manager, evaluation_tracker=tracker)
    tracker.save_results_aggregated(results=results, samples=results["samples"])
    tracker.save_results_samples(task_name=task, samples=results["samples"][task])
''')


def make_samples_log(folder):
    """Run lm-eval on the task in *folder*; return the path of the samples file it wrote."""
    folder = Path(folder)
    task_folder = folder / "task"
    task_folder.mkdir(parents=True, exist_ok=True)
    data = task_folder / "documents.jsonl"
    data.write_text("".join(json.dumps({"question": q, "answer": a}) + "\n"
                            for q, a, _ in DOCUMENTS), encoding="utf-8")
    (task_folder / f"{TASK}.yaml").write_text(TASK_YAML.format(task=TASK, data=data),
                                             encoding="utf-8")
    env = dict(os.environ, HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1",
               HF_HOME=str(folder / "hf"), TOKENIZERS_PARALLELISM="false")
    done = subprocess.run(
        [sys.executable, "-c", RUN, str(task_folder), str(folder / "out"), TASK,
         json.dumps([(q, reply) for q, _, reply in DOCUMENTS])],
        env=env, cwd=folder, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"lm-eval failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
    logs = sorted((folder / "out").rglob(f"samples_{TASK}_*.jsonl"))
    if len(logs) != 1:
        raise RuntimeError(f"expected one samples file from lm-eval, found {logs}")
    return logs[0]


def shipped_log():
    """The samples file lm-eval 0.4.13 wrote for this task, shipped with the tests."""
    logs = sorted(DATA.glob(f"samples_{TASK}_*.jsonl"))
    assert len(logs) == 1, f"expected one shipped samples file in {DATA}, found {logs}"
    return logs[0]


if __name__ == "__main__":
    import shutil
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        made = make_samples_log(scratch)
        DATA.mkdir(exist_ok=True)
        for old in DATA.glob(f"samples_{TASK}_*.jsonl"):
            old.unlink()
        shutil.copy(made, DATA / made.name)
        print(f"wrote {DATA / made.name}")
