"""``reasoneval-course build-exercises``: generate ``exercises/`` from ``solutions/``.

The solution notebooks are the masters. In each code cell, every region ::

        ### BEGIN SOLUTION
        ...
        ### END SOLUTION

becomes a stub at the indentation of the ``BEGIN`` line::

        # YOUR CODE HERE
        raise NotImplementedError()

Task texts are not copied but rendered: a markdown cell whose nbgrader
``grade_id`` is ``<exercise id>_task`` gets
:func:`~reasoneval_mini.exercises.registry.render_task_markdown`, in
``exercises/`` and in the master too (the master is rewritten only if its
text was out of date), so an exercise's wording is edited in one place, the
registry. Written tasks (markdown answer cells with nbgrader ``grade`` and
``solution`` true: nbgrader's manually graded answers) are handled as
nbgrader's release step does: the learner copy holds only
:data:`TEXT_STUB`; the master keeps the model answer, followed by the
rubric, which is rendered from the registry like the task texts. Outputs and execution counts are cleared; locked cells become read-only and
exercise cells undeletable in Jupyter (``editable``/``deletable`` metadata, as
nbgrader's release step sets them); everything else (markdown, nbgrader
metadata, cell ids) is copied. A marker line must be exactly one of the two
markers (surrounding whitespace aside); anything else that mentions
``BEGIN SOLUTION`` or ``END SOLUTION``, a nested or unclosed region, an
``END`` without ``BEGIN`` and a marker outside a code cell are
:class:`MarkerError`, naming the notebook and the cell.

Notebooks are read, validated and written with ``nbformat`` (imported only
when a notebook is read or written). The output is byte-for-byte deterministic
(:func:`dumps_notebook`), so a rebuild changes nothing and
:func:`out_of_date` (``build-exercises --check``) can tell which files a build
would change without writing any.

>>> print(strip_solution_source(
...     "def f():\\n    ### BEGIN SOLUTION\\n    return 1\\n    ### END SOLUTION\\n"))
def f():
    # YOUR CODE HERE
    raise NotImplementedError()
<BLANKLINE>
>>> strip_solution_source("    ### BEGIN SOLUTION\\n", where="ex.ipynb, cell 3")
Traceback (most recent call last):
...
reasoneval_mini.exercises.build.MarkerError: ex.ipynb, cell 3: BEGIN SOLUTION on line 1 is never closed by ### END SOLUTION
"""

import pprint
import re
from pathlib import Path

from reasoneval_mini.support.notebook_json import load_notebook_json

BEGIN = "### BEGIN SOLUTION"
END = "### END SOLUTION"
STUB = ("# YOUR CODE HERE", "raise NotImplementedError()")
#: What a written answer cell holds in the learner copy (nbgrader's ``text_stub``).
TEXT_STUB = "YOUR ANSWER HERE"
#: In a master's written answer cell, the rubric starts at the line starting with this
#: (English; :func:`rubric_start` gives it in the language being rendered).
RUBRIC_START = "**Rubric ("
_MENTION = re.compile(r"(BEGIN|END)\s*SOLUTION", re.IGNORECASE)


class MarkerError(ValueError):
    """A malformed, nested, unclosed or misplaced solution marker."""


def strip_solution_source(source, where="<cell>"):
    """Return *source* with every solution region replaced by an indented stub."""
    out, open_line, indent = [], None, ""
    for number, line in enumerate(source.splitlines(keepends=True), 1):
        text = line.strip()
        if text == BEGIN:
            if open_line is not None:
                raise MarkerError(f"{where}: nested {BEGIN} on line {number} "
                                  f"(the region opened on line {open_line} is still open)")
            open_line, indent = number, line[: len(line) - len(line.lstrip())]
            out.extend(f"{indent}{stub}\n" for stub in STUB)
        elif text == END:
            if open_line is None:
                raise MarkerError(f"{where}: {END} on line {number} without a {BEGIN}")
            open_line = None
        elif _MENTION.search(line):
            raise MarkerError(f"{where}: malformed marker on line {number}: {text!r}; "
                              f"write exactly {BEGIN!r} or {END!r} on a line of its own")
        elif open_line is None:
            out.append(line)
    if open_line is not None:
        raise MarkerError(f"{where}: BEGIN SOLUTION on line {open_line} is never closed by {END}")
    stripped = "".join(out)
    # A cell ending in the END line has no final newline; neither has its stub.
    if not source.endswith("\n") and stripped.endswith("\n"):
        stripped = stripped[:-1]
    return stripped


def _source_text(cell):
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def _lock(metadata):
    # As nbgrader's release step does: Jupyter then refuses to edit locked
    # cells (checks, setup, texts) and to delete any exercise cell.
    nbgrader = metadata.get("nbgrader", {})
    metadata = dict(metadata)
    if nbgrader.get("locked"):
        metadata["editable"] = False
    if nbgrader.get("locked") or nbgrader.get("solution"):
        metadata["deletable"] = False
    return metadata


def is_written_answer(cell):
    """True for a markdown cell that nbgrader grades by hand (``grade`` and ``solution`` true)."""
    nbgrader = cell.get("metadata", {}).get("nbgrader", {})
    return (cell.get("cell_type") == "markdown" and nbgrader.get("grade") is True
            and nbgrader.get("solution") is True)


#: The setup cell's line that names the notebook's variant; the build writes its argument.
VARIANT_LINE = re.compile(r"^use_variant\(.*\)(?P<comment>\s*#.*)?$", re.MULTILINE)
#: Where a notebook records the variant it was built for (``metadata["reasoneval"]["variant"]``).
METADATA_KEY = "reasoneval"


def rubric_start():
    """:data:`RUBRIC_START` in the current language: the rubric heading's words before its points.

    Taken from the heading's own translation, so that a rebuild of a zh-CN
    master finds the rubric it rendered before (and does not append another).

    >>> rubric_start()
    '**Rubric ('
    """
    from reasoneval_mini.support.i18n import _

    return _("**Rubric ({points})**").split("{points}", 1)[0]


#: The setup cell's line that sets the notebook's language (zh-CN editions only).
LANGUAGE_LINE = re.compile(r"^use_language\(.*\)(?P<comment>\s*#.*)?$", re.MULTILINE)
#: The import the build adds with a ``use_language`` line, when the setup cell has neither.
LANGUAGE_IMPORT = "from reasoneval_mini.support.i18n import use_language"
_IMPORT_LINE = re.compile(r"^(?:from\s+\S+\s+import\s.*|import\s.*)$", re.MULTILINE)


def _set_language_line(source, name):
    """The setup cell *source* with its ``use_language(...)`` line set to *name* (added if absent).

    >>> print(_set_language_line("import x\\nuse_variant('a')", "zh-CN"))
    import x
    from reasoneval_mini.support.i18n import use_language
    use_variant('a')
    use_language('zh-CN')
    """
    if LANGUAGE_LINE.search(source):
        return LANGUAGE_LINE.sub(lambda match: f"use_language({name!r})"
                                 + (match.group("comment") or ""), source, count=1)
    if not re.search(r"\buse_language\b", source):
        imports = list(_IMPORT_LINE.finditer(source))
        at = imports[-1].end() if imports else 0
        source = (source[:at] + ("\n" if at else "") + LANGUAGE_IMPORT
                  + ("" if at else "\n") + source[at:])
    variant = VARIANT_LINE.search(source)
    return source[:variant.end()] + f"\nuse_language({name!r})" + source[variant.end():]


def _set_variant_line(source, identity, where):
    if not VARIANT_LINE.search(source):
        raise ValueError(f"{where}: the setup cell has no use_variant(...) line for the build "
                         f"to write the variant into")
    return VARIANT_LINE.sub(lambda match: f"use_variant({identity!r})"
                            + (match.group("comment") or ""), source, count=1)


def render_typed_solution(source, exercise, variant, where="<cell>"):
    """*source* with the solution region of typed exercise *exercise* written for *variant*.

    A prediction is typed in, so its master cannot compute it: the build types
    it, from the exercise's ``solve``, as a learner of that variant would.
    """
    lines = source.splitlines(keepends=True)
    begin = next((i for i, line in enumerate(lines) if line.strip() == BEGIN), None)
    end = next((i for i, line in enumerate(lines) if line.strip() == END), None)
    if begin is None or end is None or end < begin:
        raise MarkerError(f"{where}: the master of typed exercise {exercise.id!r} needs a "
                          f"solution region")
    indent = lines[begin][: len(lines[begin]) - len(lines[begin].lstrip())]
    value = exercise.solve(exercise.data(variant))
    text = pprint.pformat(value, width=88 - len(indent) - len("return "), sort_dicts=False)
    first, *rest = text.splitlines()
    # pformat aligns continuation lines under its first character, which "return " moves.
    rendered = ([lines[begin], f"{indent}return {first}\n"]
                + [f"{indent}{' ' * len('return ')}{line}\n" for line in rest] + [lines[end]])
    return "".join(lines[:begin] + rendered + lines[end + 1:])


def refresh_task_cells(notebook, variant=None, language=None):
    """Return *notebook* with every registry exercise's task cell re-rendered for *variant*.

    Also the task cells of written tasks, and the rubric at the end of their
    answer cells (from the line starting with :data:`RUBRIC_START`); the
    nbgrader ``points`` of written answers and check cells are set from the
    registry; the setup cell's ``use_variant(...)`` line, the notebook's
    ``metadata["reasoneval"]["variant"]`` and the solution region of each
    typed exercise are written for *variant* (default: the
    :data:`~reasoneval_mini.exercises.variants.DEFAULT_IDENTITY` one). Cells
    of unknown exercises (or without nbgrader metadata) are left alone.

    *language* (default: the one the notebook's metadata records, else
    English) is the language the texts are rendered in; a notebook in another
    language than English also gets ``metadata["reasoneval"]["language"]``
    and a ``use_language(...)`` line in its setup cell. Nothing that scores
    depends on it: ids, points, variant and checks are the same.
    """
    from reasoneval_mini.support.i18n import DEFAULT_LANGUAGE, language_of_notebook
    from reasoneval_mini.support.i18n import language as speaking

    language = language or language_of_notebook(notebook)
    with speaking(language):
        return _refresh_task_cells(notebook, variant, language, language != DEFAULT_LANGUAGE)


def _refresh_task_cells(notebook, variant, language, translated):
    from reasoneval_mini.exercises.registry import (
        EXERCISES, WRITTEN_TASKS, render_rubric_markdown, render_task_markdown)
    from reasoneval_mini.exercises.variants import DEFAULT_IDENTITY, Variant

    variant = variant or Variant(DEFAULT_IDENTITY)
    start = rubric_start()
    cells = []
    for index, cell in enumerate(notebook.get("cells", []), 1):
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id", "")
        exercise_id = grade_id[: -len("_task")] if grade_id.endswith("_task") else None
        if cell.get("cell_type") == "markdown" and (exercise_id in EXERCISES
                                                   or exercise_id in WRITTEN_TASKS):
            cell = dict(cell, source=render_task_markdown(exercise_id, variant))
        elif is_written_answer(cell) and grade_id in WRITTEN_TASKS:
            text = _source_text(cell)
            # A translated master starts as a copy of the English one, so it may still
            # hold the English rubric: cut at whichever heading comes first.
            cuts = [text.find(head) for head in {start, RUBRIC_START} if head in text]
            answer = text[: min(cuts)] if cuts else text + "\n\n"
            cell = _with_points(dict(cell, source=answer + render_rubric_markdown(grade_id)),
                                WRITTEN_TASKS[grade_id].points)
        elif grade_id.endswith("_check") and grade_id[: -len("_check")] in EXERCISES:
            cell = _with_points(cell, EXERCISES[grade_id[: -len("_check")]].points)
        elif cell.get("cell_type") == "code" and grade_id.endswith("_setup"):
            source = _set_variant_line(_source_text(cell), variant.identity, f"cell {index}")
            cell = dict(cell, source=_set_language_line(source, language) if translated
                        else source)
        elif (cell.get("cell_type") == "code" and grade_id in EXERCISES
              and EXERCISES[grade_id].typed):
            cell = dict(cell, source=render_typed_solution(
                _source_text(cell), EXERCISES[grade_id], variant, f"cell {index}"))
        cells.append(cell)
    metadata = dict(notebook.get("metadata", {}))
    metadata[METADATA_KEY] = dict(metadata.get(METADATA_KEY, {}), variant=variant.identity)
    if translated:
        metadata[METADATA_KEY]["language"] = language
    return dict(notebook, cells=cells, metadata=metadata)


def _with_points(cell, points):
    # The registry is the one place points are written; nbgrader reads them from here.
    metadata = dict(cell.get("metadata", {}))
    metadata["nbgrader"] = dict(metadata.get("nbgrader", {}), points=points)
    return dict(cell, metadata=metadata)


def strip_notebook(notebook, name="<notebook>"):
    """Return a stripped copy of a notebook dict (the input is not changed)."""
    cells = []
    for index, cell in enumerate(notebook.get("cells", []), 1):
        where = f"{name}, cell {index}"
        cell = dict(cell)
        text = _source_text(cell)
        if cell.get("cell_type") == "code":
            text = strip_solution_source(text, where)
            cell["outputs"], cell["execution_count"] = [], None
        elif _MENTION.search(text):
            raise MarkerError(f"{where}: solution markers belong in code cells only "
                              f"(this is a {cell.get('cell_type')} cell)")
        elif is_written_answer(cell):
            text = TEXT_STUB  # the model answer and the rubric stay in the master
        cell["source"] = text  # nbformat's in-memory form; written split into lines
        cell["metadata"] = _lock(cell.get("metadata", {}))
        cells.append(cell)
    return dict(notebook, cells=cells)


def _nbformat():
    # Imported here: ``import reasoneval_mini.exercises.build`` stays cheap.
    import nbformat

    return nbformat


def dumps_notebook(notebook):
    """The one text layout the course writes notebooks in: nbformat's, with a final newline.

    nbformat writes sorted keys, one-space indentation, unescaped non-ASCII
    and sources split into lines, so the same notebook always gives the same
    bytes.
    """
    nbformat = _nbformat()
    return nbformat.writes(nbformat.from_dict(notebook), version=nbformat.NO_CONVERT) + "\n"


def _validated(notebook, name):
    nbformat = _nbformat()
    try:
        nbformat.validate(notebook)
    except nbformat.ValidationError as error:
        raise ValueError(f"{name} is not a valid nbformat 4 notebook: {error.message}") from None
    return notebook


def read_notebook(path):
    """Read and validate the nbformat 4 notebook at *path*; ``ValueError`` names the file.

    The JSON is read as every notebook of the package is
    (:func:`~reasoneval_mini.support.notebook_json.load_notebook_json`), then
    nbformat validates it: a master must be a well-formed notebook.
    """
    nbformat, path = _nbformat(), Path(path)
    data = path.read_bytes()
    # nbformat's reader trips over other JSON with AttributeErrors: say what is expected first.
    if load_notebook_json(data, path.name).get("nbformat") != 4:
        raise ValueError(f"{path.name} is JSON but not a notebook: expected an object with "
                         "'nbformat': 4 and a 'cells' list of cell objects")
    try:
        notebook = nbformat.reads(data.decode("utf-8"), as_version=nbformat.NO_CONVERT)
    except nbformat.ValidationError as error:  # e.g. a cell that is not an object
        raise ValueError(f"{path.name} is not a valid nbformat 4 notebook: {error.message}") from None
    return _validated(notebook, path.name)


def plan_exercises(solutions_dir, exercises_dir, variant=None, with_masters=True,
                   languages=None):
    """What a build would write: a list of ``(path, text)``, masters first where stale.

    A master in *solutions_dir* is listed only if its task cells are out of
    date for *variant* (default: the shipped one) and *with_masters* is true;
    every exercise notebook is listed, rendered for *variant*. Nothing is
    written. Raises ``ValueError`` (:class:`MarkerError` included) naming the
    notebook when a master cannot be read or stripped, or when there is none.

    Each language edition of a master (``solutions/zh-CN/<name>``, see
    :func:`~reasoneval_mini.editions.edition_path`) is built the same way, in
    its language, into ``exercises/zh-CN/<name>`` (*languages*: the languages
    to build, default every one; an edition that does not exist is skipped).
    An edition must have the English master's cells, with the same nbgrader
    metadata: the same exercises, points and checks, whatever the language.
    """
    from reasoneval_mini.support.i18n import DEFAULT_LANGUAGE, LANGUAGES

    languages = LANGUAGES if languages is None else tuple(languages)
    solutions_dir, exercises_dir = Path(solutions_dir), Path(exercises_dir)
    sources = sorted(solutions_dir.glob("*.ipynb"))
    if not sources:
        raise ValueError(f"no notebooks found in {solutions_dir}")
    masters, exercises = [], []
    for path in sources:
        notebook = read_notebook(path)
        if not _is_master(notebook):
            raise ValueError(
                f"{path} is not an exercise master: it has no solution region and no "
                f"exercise task cell; --solutions must name the folder of master notebooks "
                f"(default: solutions)")
        master = refresh_task_cells(notebook, variant, DEFAULT_LANGUAGE)
        exercise = _validated(strip_notebook(master, path.name), path.name)
        if DEFAULT_LANGUAGE in languages:
            if with_masters and master != notebook:
                masters.append((path, dumps_notebook(_validated(master, path.name))))
            exercises.append((exercises_dir / path.name, dumps_notebook(exercise)))
        for name in languages:
            if name != DEFAULT_LANGUAGE and _edition(path, name).is_file():
                planned_master, planned_exercise = _plan_edition(
                    path, name, master, exercise, exercises_dir, variant, with_masters)
                masters += planned_master
                exercises.append(planned_exercise)
    return masters + exercises


def _edition(path, language):
    from reasoneval_mini.editions import edition_path

    return edition_path(path, language)


def _plan_edition(english_path, language, english_master, english_exercise, exercises_dir,
                  variant, with_masters):
    """``([master] or [], exercise)`` for the *language* edition of the master at *english_path*."""
    path = _edition(english_path, language)
    where = f"{path.parent.name}/{path.name}"
    notebook = read_notebook(path)
    master = refresh_task_cells(notebook, variant, language)
    _same_exercises(english_master, master, where, english_path.name)
    master = _with_record(master, english_master, english_path.name,
                          f"{english_path.parent.name}/{english_path.name}")
    planned = [(path, dumps_notebook(_validated(master, where)))] if (
        with_masters and master != notebook) else []
    exercise = strip_notebook(master, where)
    exercise = _with_record(exercise, english_exercise, english_path.name,
                            f"{Path(exercises_dir).name}/{english_path.name}",
                            translated_from=master)
    return planned, (_edition(Path(exercises_dir) / english_path.name, language),
                     dumps_notebook(_validated(exercise, where)))


def _nbgrader_plan(notebook):
    return [(cell.get("cell_type"), cell.get("metadata", {}).get("nbgrader"))
            for cell in notebook.get("cells", [])]


def _same_exercises(english, translated, where, english_name):
    # Scoring never depends on the language: a cell that differs in kind or in nbgrader
    # metadata (an id, points, a locked flag) would grade the edition differently.
    ours, theirs = _nbgrader_plan(english), _nbgrader_plan(translated)
    if len(ours) != len(theirs):
        raise ValueError(f"{where} has {len(theirs)} cells, its English master {english_name} "
                         f"{len(ours)}: an edition has the same cells in the same order")
    for number, (a, b) in enumerate(zip(ours, theirs), 1):
        if a != b:
            raise ValueError(f"{where}, cell {number}: {b!r} where its English master "
                             f"{english_name} has {a!r}: an edition has the same cells, with "
                             f"the same nbgrader metadata")


def _is_rendered(cell):
    grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id", "")
    return cell.get("cell_type") == "markdown" and (grade_id.endswith("_task")
                                                   or is_written_answer(cell))


def _with_record(notebook, english, name, recorded_as, translated_from=None):
    """*notebook* (an edition) with its record of the English brought up to date where the build renders.

    The record (:func:`~reasoneval_mini.editions.origin_record`) is the
    English markdown the translator translated. The cells the build renders
    (task cells, rubrics, a stub's written answer) are translated by the
    catalogue, whose own test tells a stale message: their entries are the
    English of today. The translator's cells keep the English they were
    translated from (of *translated_from*, the edition's master, for a
    stub), so a changed English cell still shows as stale in both editions.
    """
    from reasoneval_mini.editions import TRANSLATION_KEY, origin_record

    source = translated_from if translated_from is not None else notebook
    record = ((source.get("metadata") or {}).get(METADATA_KEY) or {}).get(TRANSLATION_KEY)
    english_cells = [cell for cell in english["cells"] if cell.get("cell_type") == "markdown"]
    if not record or len(record.get("markdown", ())) != len(english_cells):
        return notebook  # no record, or one of another English: the staleness test says so
    markdown = []
    for cell, recorded in zip(english_cells, record["markdown"]):
        text = _source_text(cell)
        if is_written_answer(cell) and translated_from is None:
            # The translator's model answer, then the rubric the build renders.
            answer = recorded[: recorded.find(RUBRIC_START)] if RUBRIC_START in recorded else \
                recorded
            at = text.find(RUBRIC_START)
            markdown.append(answer + text[at:] if at >= 0 else recorded)
        elif _is_rendered(cell):
            markdown.append(text)
        else:
            markdown.append(recorded)
    cells = [{"cell_type": "markdown", "source": text} for text in markdown]
    metadata = dict(notebook.get("metadata", {}))
    metadata[METADATA_KEY] = dict(metadata.get(METADATA_KEY, {}), **{
        TRANSLATION_KEY: origin_record({"cells": cells}, recorded_as)})
    return dict(notebook, metadata=metadata)


def _is_master(notebook):
    # Lesson notebooks have neither; building from them would "succeed" and
    # write lessons into exercises/.
    for cell in notebook.get("cells", []):
        grade_id = str(cell.get("metadata", {}).get("nbgrader", {}).get("grade_id", ""))
        if (grade_id.endswith("_task") or "BEGIN SOLUTION" in _source_text(cell)
                or is_written_answer(cell)):
            return True
    return False


def master_for(path, variant):
    """The master notebook at *path* as *variant*'s master would be (a dict; nothing written)."""
    return refresh_task_cells(read_notebook(path), variant)


def plan_class(solutions_dir, out_dir, identities):
    """``(path, text)`` for ``out_dir/<identity>/<notebook>`` of every identity: a class's release.

    Each student's notebooks are rendered for the variant of their identity
    (a roster's ``folder``, which is also the folder ``grade`` reads later).
    ``ValueError`` names an identity that is no usable folder name.
    """
    from reasoneval_mini.exercises.variants import Variant

    planned = []
    for identity in identities:
        if identity in (".", "..") or "/" in identity or "\\" in identity or "\0" in identity:
            raise ValueError(f"{identity!r} cannot be a folder name: a class's identities are "
                             f"the roster's folder names")
        # English: a class is released in one edition (nbgrader's release has one folder).
        planned += plan_exercises(solutions_dir, Path(out_dir) / identity, Variant(identity),
                                  with_masters=False, languages=("en",))
    return planned


def build_exercises(solutions_dir, exercises_dir):
    """Write a stripped copy of every ``*.ipynb`` in *solutions_dir*; return the paths.

    Masters whose task texts were out of date are rewritten first (see the
    module docstring); the returned list names those too. Every notebook is
    read and stripped before any is written, so a bad one writes nothing; each
    file is written atomically.
    """
    from reasoneval_mini.support.files import write_atomically

    planned = plan_exercises(solutions_dir, exercises_dir)
    for path, text in planned:
        write_atomically(path, text)
    return [path for path, _ in planned]


def out_of_date(solutions_dir, exercises_dir):
    """The files a build would change (stale masters, missing or stale exercises); writes nothing."""
    return [path for path, text in plan_exercises(solutions_dir, exercises_dir)
            if not path.is_file() or path.read_bytes() != text.encode("utf-8")]
