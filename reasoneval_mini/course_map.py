"""The course map: the lessons and the exercise notebooks, in order, declared once.

:data:`LESSONS` lists the notebooks of ``notebooks/`` and what each teaches;
:data:`EXERCISE_NOTEBOOKS` lists the exercise notebooks (same file names in
``solutions/`` and ``exercises/``), each with its knowledge point and the
lesson it follows. Everything else reads the order from here: the exercise
registry (whose exercise set for ``exNN_name.ipynb`` is the module
``reasoneval_mini.exercises.exNN_name``), the tests, and, through a test that
fails when they drift, the README's "Course map" table and lesson 00, which
show :func:`lesson_table`. Adding a lesson means adding a row here and its
notebook.

>>> [lesson.notebook for lesson in LESSONS][:2]
['00_start_here.ipynb', '01_answer_equivalence.ipynb']
>>> print(lesson_table().splitlines()[2])
| 00 | `00_start_here.ipynb` | find your way around, check your setup, use the exercise checks |

Surprising: an exercise set finds its notebook by its own module name.

>>> exercise_notebook_for("reasoneval_mini.exercises.ex02_pass_at_k").knowledge_point
'pass@k'
"""

from dataclasses import dataclass

__all__ = ["EXERCISE_NOTEBOOKS", "ExerciseNotebook", "LESSONS", "Lesson",
           "exercise_notebook_for", "lesson_table"]

#: Where each exercise notebook's exercise set lives: ``<package>.<notebook stem>``.
EXERCISE_PACKAGE = "reasoneval_mini.exercises"


@dataclass(frozen=True)
class Lesson:
    """One lesson: its two-digit *number*, its *notebook* file and what *learn* (markdown) says."""

    number: str
    notebook: str
    learn: str


@dataclass(frozen=True)
class ExerciseNotebook:
    """One exercise notebook: its file name, its knowledge point and the lesson it follows."""

    notebook: str
    knowledge_point: str
    lesson: str

    @property
    def module(self):
        """The module holding this notebook's exercise set."""
        return f"{EXERCISE_PACKAGE}.{self.notebook.removesuffix('.ipynb')}"


#: The lessons of ``notebooks/``, in the order a learner takes them.
LESSONS = (
    Lesson("00", "00_start_here.ipynb",
           "find your way around, check your setup, use the exercise checks"),
    Lesson("01", "01_answer_equivalence.ipynb",
           "declare an answer space and compare final answers exactly; "
           "keep `None`, `False` and `ValueError` apart"),
    Lesson("02", "02_pass_at_k.ipynb",
           "derive and compute pass@k, check it by enumeration, and report it with its budget"),
    Lesson("03", "03_execution_states.ipynb",
           "record the five execution states and compute coverage, success and "
           "attempted success"),
    Lesson("04", "04_uncertainty.ipynb",
           "say how sure a pass@k number is, compare two models on the same problems, "
           "and size a benchmark to detect a gain"),
    Lesson("05", "05_capstone_mini_evaluation.ipynb",
           "run a small end-to-end evaluation and write a short, honest report"),
)

#: The exercise notebooks, in course order (``solutions/`` and ``exercises/``).
EXERCISE_NOTEBOOKS = (
    ExerciseNotebook("ex01_answer_equivalence.ipynb", "final-answer equivalence", "01"),
    ExerciseNotebook("ex02_pass_at_k.ipynb", "pass@k", "02"),
    ExerciseNotebook("ex03_execution_states.ipynb", "execution states", "03"),
    ExerciseNotebook("ex04_uncertainty.ipynb", "uncertainty", "04"),
    ExerciseNotebook("ex05_capstone_report.ipynb", "capstone report", "05"),
)


def lesson_table():
    """The markdown table of :data:`LESSONS` that the README and lesson 00 show."""
    rows = ["| # | notebook | you will learn to |", "|---|----------|-------------------|"]
    rows += [f"| {lesson.number} | `{lesson.notebook}` | {lesson.learn} |" for lesson in LESSONS]
    return "\n".join(rows)


def exercise_notebook_for(module_name):
    """The :class:`ExerciseNotebook` whose exercise set is the module *module_name*.

    Raises ``ValueError`` naming *module_name* and the known modules when no
    exercise notebook of the map belongs to it.
    """
    for entry in EXERCISE_NOTEBOOKS:
        if entry.module == module_name:
            return entry
    known = ", ".join(entry.module for entry in EXERCISE_NOTEBOOKS)
    raise ValueError(f"no exercise notebook in the course map for module {module_name!r}; "
                     f"expected one of: {known}")
