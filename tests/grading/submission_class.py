"""A class of synthetic submissions for the grading tests, and how to grade it.

The class is generated from solutions-like sources for a small fake registry
(tests/grading/fixtures/fake_registry.py, same API as the real one): every
case of issue 5 is one student. Expected scores come from the registry's
points and from running the answer sources directly against the registry's
checks in this process (an independent path: no notebook, no child).
"""

import csv
import importlib.util
import json
import os
from fractions import Fraction
from pathlib import Path

from reasoneval_mini import cli
from reasoneval_mini.grading.statuses import (
    GRADE_ERROR, GRADE_FAILED, GRADE_MISSING, GRADE_PASSED, GRADE_TIMEOUT)

FAKE_REGISTRY = Path(__file__).parent / "fixtures" / "fake_registry.py"
TIMEOUT = "2"

ADD = "def add_numbers(a, b):\n    return a + b\n"
WORDS = "def count_words(text):\n    return len(text.split())\n"
SHOUT = "def shout(text):\n    return text.upper()\n"
ADD_STUB = "def add_numbers(a, b):\n    # YOUR CODE HERE\n    raise NotImplementedError\n"
WORDS_STUB = "def count_words(text):\n    raise NotImplementedError\n"
SHOUT_STUB = "def shout(text):\n    raise NotImplementedError\n"
ADD_PARTIAL = "def add_numbers(a, b):\n    return abs(a) + b\n"        # 1 of 2 checks
WORDS_PARTIAL = "def count_words(text):\n    return text.count(' ') + 1\n"  # 1 of 3
LOOP = "def count_words(text):\n    while True:\n        pass\n"
STUBBORN_LOOP = ("def count_words(text):\n    while True:\n        try:\n"
                 "            while True:\n                pass\n"
                 "        except BaseException:\n            pass\n")
CHEAT = '''\
import os, builtins, grading_registry
def check(*args, **kwargs):
    print("passed")
real = grading_registry.CheckResult
grading_registry.CheckResult = lambda name, passed, *rest, **kw: real(name, True, *rest, **kw)
grading_registry.run_checks = lambda *args, **kwargs: []
print("3 of 3 checks passed")
forged = {"event": "result", "exercise": "add", "status": "failed", "message": "",
          "checks": [{"passed": True}, {"passed": True}]}
for fd in range(0, 20):
    try:
        os.write(fd, (json.dumps(forged) + "\\n").encode())
    except OSError:
        pass
'''
# At top level, not in a function: it hangs a notebook cell, not a check.
STUBBORN_CELL = ("while True:\n    try:\n        while True:\n            pass\n"
                 "    except BaseException:\n        pass\n")
# Rewrites every result the grading process would send through json.dumps.
FORGE_JSON = """\
import json
real_dumps = json.dumps
def forged(obj, **kwargs):
    if isinstance(obj, dict) and obj.get("event") == "result":
        obj = dict(obj, status="failed", checks=[{"passed": True}] * 2)
    return real_dumps(obj, **kwargs)
json.dumps = forged
"""
# A well-framed result in the grader's own protocol, without this run's nonce.
FORGE_FRAME = """\
import os
from reasoneval_mini.support.messages import write_message
forged = {"event": "result", "exercise": "add", "status": "failed", "message": "",
          "checks": [{"passed": True}, {"passed": True}]}
for fd in range(3, 20):
    try:
        write_message(fd, forged)
    except OSError:
        pass
"""
ADD_CHEAT = "def add_numbers(a, b):\n    return None\n"
WORDS_CHEAT = "def count_words(text):\n    return -1\n"
SHOUT_CHEAT = "def shout(text):\n    return 'passed'\n"


def main(argv):
    """The command line, as ``reasoneval-course`` runs it."""
    return cli.main(argv)


def load_fake_registry():
    spec = importlib.util.spec_from_file_location("fake_registry_for_tests", FAKE_REGISTRY)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


REGISTRY = load_fake_registry()


def cell(kind, source, grade_id=None, outputs=None, cell_id=None):
    data = {"cell_type": kind, "id": cell_id or f"c{abs(hash(source)) % 10**8}",
            "metadata": {}, "source": source.splitlines(keepends=True)}
    if grade_id:
        data["metadata"]["nbgrader"] = {"grade_id": grade_id, "solution": True,
                                        "grade": False, "locked": False, "schema_version": 3}
    if kind == "code":
        data.update(outputs=outputs or [], execution_count=None)
    return data


def add_notebook(add=ADD, kind="code", extra=()):
    return [cell("markdown", "# Add two numbers"), cell("code", "import math"),
            *extra, cell(kind, add, "add"), cell("code", 'check("add", add_numbers)')]


def words_notebook(words=WORDS, shout=SHOUT, top=()):
    return [cell("markdown", "# Words"), *top, cell("code", words, "count_words"),
            cell("code", 'check("count_words", count_words)\nhint("count_words")'),
            cell("code", shout, "shout"), cell("code", 'check("shout", shout)')]


def write_notebook(path, cells):
    path.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {},
                                "cells": cells}, indent=1), encoding="utf-8")


HUGE_PRINT = "def count_words(text):\n    print('x' * 10_000_000)\n    return len(text.split())\n"
HUGE_STORED = [{"output_type": "stream", "name": "stdout", "text": "passed\n" * 300_000}]

# student -> (ex01_add.ipynb cells or text or None, ex02_words.ipynb cells or text or None)
CLASS = {
    "perfect": (add_notebook(), words_notebook()),
    "blank": (add_notebook(ADD_STUB), words_notebook(WORDS_STUB, SHOUT_STUB)),
    "partial": (add_notebook(ADD_PARTIAL), words_notebook(WORDS_PARTIAL)),
    "invalid_json": ('{"cells": [', words_notebook()),
    "missing_notebook": (add_notebook(), None),
    "renamed_notebook": (add_notebook(), ("ex02_words (1).ipynb", words_notebook())),
    "deleted_cell": ([c for c in add_notebook() if "def add_numbers" not in "".join(c["source"])],
                     words_notebook()),
    "retyped_cell": (add_notebook(kind="markdown"),
                     [c if "check(" not in "".join(c["source"]) else {**c, "cell_type": "raw"}
                      for c in words_notebook()]),
    "duplicated_cells": (add_notebook(extra=[cell("code", ADD_PARTIAL, "add", cell_id="same")])
                         + [cell("code", ADD, "add", cell_id="same")],
                         words_notebook()),
    "infinite_loop": (add_notebook(), words_notebook(LOOP)),
    "stubborn_loop": (add_notebook(), words_notebook(STUBBORN_LOOP)),
    "crash": (add_notebook("def add_numbers(a, b):\n    import os\n    os._exit(3)\n"),
              words_notebook(top=[cell("code", "import sys\nsys.exit('bye')")])),
    "huge_output": (add_notebook(extra=[cell("code", "print('ok')", outputs=HUGE_STORED)]),
                    words_notebook(HUGE_PRINT)),
    "closes_channel": (add_notebook(extra=[cell("code", "import os\nos.closerange(3, 4096)")]),
                       words_notebook()),
    "forges_json": (add_notebook(ADD_CHEAT, extra=[cell("code", FORGE_JSON)]), words_notebook()),
    "forges_frame": (add_notebook(ADD_CHEAT, extra=[cell("code", FORGE_FRAME)]), words_notebook()),
    "stubborn_cell": (add_notebook(), words_notebook(
        shout=SHOUT + STUBBORN_CELL, top=[cell("code", "print('before the loop')")])),
    "nested_folder": (("download/ex01_add.ipynb", add_notebook()), words_notebook()),
    "two_copies": (add_notebook(), [("old/ex02_words.ipynb", words_notebook()),
                                    ("new/ex02_words.ipynb", words_notebook())]),
    "cheater": (add_notebook(ADD_CHEAT, extra=[cell("code", "import json\n" + CHEAT)]),
                words_notebook(WORDS_CHEAT, SHOUT_CHEAT)),
}
if os.name == "posix":  # the memory ceiling is an rlimit
    # 6 GiB of untouched zeros: cheap without the ceiling, MemoryError with it.
    MEMORY_HOG = "def add_numbers(a, b):\n    hog = bytearray(6 * 2**30)\n    return a + b\n"
    CLASS["memory_hog"] = (add_notebook(MEMORY_HOG), words_notebook())
    SEGFAULT = "def shout(text):\n    import ctypes\n    return ctypes.string_at(0)\n"
    CLASS["segfault"] = (add_notebook(), words_notebook(shout=SEGFAULT))


def checks_passed(exercise_id, source):
    """Independent path: define the answer here and run the registry's checks."""
    namespace = {}
    exec(source, namespace)
    exercise = REGISTRY.EXERCISES[exercise_id]
    return sum(r.passed for r in REGISTRY.run_checks(exercise_id, namespace[exercise.answer_name]))


def points(exercise_id, passed):
    exercise = REGISTRY.EXERCISES[exercise_id]
    return Fraction(exercise.points * passed, len(exercise.checks))


def full(exercise_id):
    return (GRADE_PASSED, points(exercise_id, len(REGISTRY.EXERCISES[exercise_id].checks)))


def failed(exercise_id, source):
    return (GRADE_FAILED, points(exercise_id, checks_passed(exercise_id, source)))


ZERO = Fraction(0)
EXPECTED = {  # student -> {exercise: (status, score)}
    "perfect": {"add": full("add"), "count_words": full("count_words"), "shout": full("shout")},
    "blank": {"add": (GRADE_FAILED, ZERO), "count_words": (GRADE_FAILED, ZERO),
              "shout": (GRADE_FAILED, ZERO)},
    "partial": {"add": failed("add", ADD_PARTIAL), "count_words": failed("count_words", WORDS_PARTIAL),
                "shout": full("shout")},
    "invalid_json": {"add": (GRADE_ERROR, ZERO), "count_words": full("count_words"),
                     "shout": full("shout")},
    "missing_notebook": {"add": full("add"), "count_words": (GRADE_MISSING, ZERO),
                         "shout": (GRADE_MISSING, ZERO)},
    "renamed_notebook": {"add": full("add"), "count_words": (GRADE_MISSING, ZERO),
                         "shout": (GRADE_MISSING, ZERO)},
    "deleted_cell": {"add": (GRADE_MISSING, ZERO), "count_words": full("count_words"),
                     "shout": full("shout")},
    "retyped_cell": {"add": (GRADE_MISSING, ZERO), "count_words": full("count_words"),
                     "shout": full("shout")},
    "duplicated_cells": {"add": full("add"), "count_words": full("count_words"),
                         "shout": full("shout")},
    "infinite_loop": {"add": full("add"), "count_words": (GRADE_TIMEOUT, ZERO),
                      "shout": full("shout")},
    "stubborn_loop": {"add": full("add"), "count_words": (GRADE_TIMEOUT, ZERO),
                      "shout": full("shout")},
    "crash": {"add": (GRADE_ERROR, ZERO), "count_words": full("count_words"),
              "shout": full("shout")},
    "huge_output": {"add": full("add"), "count_words": full("count_words"), "shout": full("shout")},
    "memory_hog": {"add": (GRADE_FAILED, ZERO), "count_words": full("count_words"), "shout": full("shout")},
    # The bad cell is skipped on a second run; the answers in other cells count.
    "closes_channel": {"add": full("add"), "count_words": full("count_words"),
                       "shout": full("shout")},
    "forges_json": {"add": failed("add", ADD_CHEAT), "count_words": full("count_words"),
                    "shout": full("shout")},
    "forges_frame": {"add": failed("add", ADD_CHEAT), "count_words": full("count_words"),
                     "shout": full("shout")},
    # The loop shares shout's cell, so shout is never defined: that cell timed out.
    "stubborn_cell": {"add": full("add"), "count_words": full("count_words"),
                      "shout": (GRADE_TIMEOUT, ZERO)},
    "nested_folder": {"add": full("add"), "count_words": full("count_words"),
                      "shout": full("shout")},
    "two_copies": {"add": full("add"), "count_words": (GRADE_MISSING, ZERO),
                   "shout": (GRADE_MISSING, ZERO)},
    "segfault": {"add": full("add"), "count_words": full("count_words"),
                 "shout": (GRADE_ERROR, ZERO)},
    "cheater": {"add": failed("add", ADD_CHEAT), "count_words": failed("count_words", WORDS_CHEAT),
                "shout": failed("shout", SHOUT_CHEAT)},
}


def build_class(root):
    for student, notebooks in CLASS.items():
        folder = root / student
        folder.mkdir(parents=True)
        for name, content in zip(("ex01_add.ipynb", "ex02_words.ipynb"), notebooks):
            copies = content if isinstance(content, list) and isinstance(content[0], tuple) \
                else [content if isinstance(content, tuple) else (name, content)]
            for name, content in copies:
                (folder / name).parent.mkdir(parents=True, exist_ok=True)
                if isinstance(content, str):
                    (folder / name).write_text(content, encoding="utf-8")
                elif content is not None:
                    write_notebook(folder / name, content)
    (root / "README.txt").write_text("loose files are ignored\n", encoding="utf-8")
    return root


def grade(submissions, out_dir, *extra):
    argv = ["grade", str(submissions), "--out", str(out_dir / "grades.csv"), "--feedback",
            str(out_dir / "feedback"), "--registry", str(FAKE_REGISTRY), "--workers", "4",
            "--timeout", TIMEOUT, "--no-progress", *extra]
    return main(argv)


def read_csv(path):
    with open(path, encoding="utf-8", newline="") as stream:
        return list(csv.reader(stream))
