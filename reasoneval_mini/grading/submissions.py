"""Find the students of a submissions folder and each student's notebooks.

``SUBMISSIONS_DIR/<student>/<notebook>.ipynb``: one folder per student, holding
copies of the exercise notebooks under their names in ``exercises/``.

>>> import tempfile, types
>>> root = Path(tempfile.mkdtemp())
>>> for folder in ("zoe", "ada/download", ".ipynb_checkpoints"):
...     (root / folder).mkdir(parents=True)
>>> _ = (root / "ada/download/ex01.ipynb").write_text("{}")
>>> discover_students(root)
['ada', 'zoe']

Surprising: a notebook nested once in a subfolder is found (download tools
do that), while a missing one is recorded, not raised.

>>> exercises = {"e1": types.SimpleNamespace(id="e1", notebook="ex01.ipynb")}
>>> tasks, missing = plan_notebooks(root / "ada", exercises)
>>> [Path(t["notebook"]).relative_to(root.resolve()).as_posix() for t in tasks], missing
(['ada/download/ex01.ipynb'], {})
>>> plan_notebooks(root / "zoe", exercises)
([], {'e1': 'no notebook ex01.ipynb in zoe/'})
>>> import shutil; shutil.rmtree(root)
"""

from pathlib import Path

from reasoneval_mini.support.text import shorten


def discover_students(submissions_dir):
    """Sorted student folder names; ``ValueError`` if there are none.

    Hidden folders (``.git``, ``.ipynb_checkpoints``) and loose files are ignored.
    """
    root = Path(submissions_dir)
    if not root.is_dir():
        raise ValueError(f"SUBMISSIONS_DIR {str(root)!r} is not a directory; expected one "
                         "folder per student")
    students = sorted(p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
    if not students:
        raise ValueError(f"SUBMISSIONS_DIR {str(root)!r} has no student folders; expected "
                         "SUBMISSIONS_DIR/<student>/<notebook>.ipynb")
    return students


def plan_notebooks(student_dir, exercises):
    """``(tasks, missing)`` for one student folder.

    *tasks* are for the grading child: ``[{"notebook": absolute path,
    "exercises": [id, ...]}]``. *exercises* maps ids to objects with a
    ``notebook`` file name. A notebook is found at the top of *student_dir*
    or, if only one copy exists, in a subfolder. Exercises whose notebook is
    absent, or present more than once, are in *missing* instead,
    ``{exercise_id: message}`` (the grader records them as ``missing``).
    """
    student_dir = Path(student_dir)
    by_notebook = {}
    for exercise in exercises.values():
        by_notebook.setdefault(Path(exercise.notebook).name, []).append(exercise.id)
    found = {}  # file name -> paths; a folder nested by a download tool is fine
    for path in sorted(student_dir.rglob("*.ipynb")):
        if ".ipynb_checkpoints" not in path.parts:
            found.setdefault(path.name, []).append(path)
    others = sorted(set(found) - set(by_notebook))
    hint = f" (found instead: {', '.join(others)}; renamed?)" if others else ""
    tasks, missing = [], {}
    for notebook, ids in by_notebook.items():
        paths = found.get(notebook, [])
        top = student_dir / notebook
        if top in paths or len(paths) == 1:
            chosen = top if top in paths else paths[0]
            tasks.append({"notebook": str(chosen.resolve()), "exercises": ids})
            continue
        if paths:
            where = ", ".join(str(p.relative_to(student_dir).as_posix()) for p in paths)
            message = f"{len(paths)} copies of {notebook} in {student_dir.name}/ ({where}); keep one"
        else:
            message = f"no notebook {notebook} in {student_dir.name}/{hint}"
        missing.update(dict.fromkeys(ids, shorten(message)))
    return tasks, missing
