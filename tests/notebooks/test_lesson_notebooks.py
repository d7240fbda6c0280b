"""Structure checks for every lesson in notebooks/ (nbval runs them; this reads them).

Conventions every lesson follows (these tests enforce the checkable ones):

* File name ``NN_snake_name.ipynb``; the order is declared once, in
  ``reasoneval_mini/course_map.py`` (the README's "## Course map" table and
  00_start_here show it; tests/notebooks/test_course_map.py keeps them in step).
* The first cell is markdown: ``# Lesson NN · Title``, then **Questions** and
  **Objectives** (action verbs) and a time estimate (``*Time: about N minutes``).
  Every lesson ends with the same sections, in this order: ``## Key points``
  answering the objectives, ``## Exercises`` (a lesson with exercise notebooks
  in the course map points to them, ``exercises/exNN_<name>.ipynb``), and a
  ``**Next:**`` line. Optional material goes in a "Going further" section
  before the key points.
* Each lesson has at least one inline challenge whose answer is folded:
  ``<details><summary>Answer</summary> ... </details>`` in markdown.
* Lessons import ``reasoneval_mini`` and define no library code: no ``def`` or
  ``class`` in code cells. Figures come from ``plot_*`` helpers in
  ``reasoneval_mini.lessons`` (size and colours from ``lessons/palette.py``:
  (6.4, 3.6) inches at dpi 110, one Okabe-Ito colour per execution state), each
  with a title and followed by a markdown cell that starts ``*Figure:`` and
  describes it in one or two lines (for screen readers and readers of the
  stored page); explorers from
  ``make_*_explorer()`` in ``reasoneval_mini.lessons``, each preceded by a static call of its pure
  function so the page reads well without a kernel.
* nbval runs in lax mode: only cells whose first line is ``# NBVAL_CHECK_OUTPUT``
  are compared. Put it on cells that print the lesson's numbers; those cells
  print deterministic text only (no figures, widgets, versions or paths).
* Outputs are stored (execute with ``jupyter nbconvert --to notebook --execute
  --inplace``), then widget state metadata and widget-view outputs are dropped.
  No memory addresses, absolute paths or timings in stored text; fixed seeds.
  Each notebook stays under 1 MB (aim for 200 KB).
"""

import json
import re
from pathlib import Path

import pytest

from reasoneval_mini.course_map import EXERCISE_NOTEBOOKS, LESSONS as COURSE_LESSONS

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
LESSONS = [NOTEBOOKS / lesson.notebook for lesson in COURSE_LESSONS]
MAX_BYTES = 1_000_000
MAX_IMAGE_CHARS = 150_000  # base64 PNG; a (6.4, 3.6) figure at dpi 110 is ~40-90k
MIN_FIGURE_WIDTH_PX = 600  # readable on a projector (the old 472 px blurred)
CHECK_MARKER = "# NBVAL_CHECK_OUTPUT"
# Lesson number -> the exercise notebooks that follow it.
EXERCISE_FOR = {}
for _entry in EXERCISE_NOTEBOOKS:
    EXERCISE_FOR.setdefault(_entry.lesson, []).append(f"exercises/{_entry.notebook}")

ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{6,}\b")
ABSOLUTE_PATH = re.compile(
    r"(?<![\w.])(/(home|work|tmp|usr|Users|root|opt|var|private)/|[A-Za-z]:\\\\?[A-Za-z])"
)
# Measured durations: IPython's timers, "took"/"elapsed", or a number with 3+ decimals
# and a unit. A declared budget such as "timeout 2.0 s" is fine.
TIMING = re.compile(
    r"(Wall time|CPU times|per loop|took \d|elapsed|\d+\.\d{3,}\s?(s|ms|µs|us|ns|seconds?)\b)"
)


def read(path):
    return json.loads(path.read_text(encoding="utf-8"))


def source(cell):
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def text_outputs(cell):
    for output in cell.get("outputs", []):
        if "text" in output:
            yield "".join(output["text"]) if isinstance(output["text"], list) else output["text"]
        for mime in ("text/plain", "text/html", "text/markdown"):
            value = output.get("data", {}).get(mime)
            if value is not None:
                yield "".join(value) if isinstance(value, list) else value
        if output.get("output_type") == "error":
            yield "\n".join(output.get("traceback", []))


def test_notebooks_folder_holds_exactly_the_lessons_of_the_course_map():
    assert LESSONS, "the course map lists no lesson"
    found = sorted(path.name for path in NOTEBOOKS.glob("*.ipynb"))
    assert found == sorted(path.name for path in LESSONS)
    for path in NOTEBOOKS.iterdir():
        assert path.name.startswith(".") or not path.name.lower().startswith("untitled"), (
            f"stray notebook {path.name}")


@pytest.mark.parametrize("lesson", COURSE_LESSONS, ids=lambda lesson: lesson.notebook)
def test_lesson_file_name_starts_with_its_number(lesson):
    assert re.fullmatch(rf"{lesson.number}_[a-z0-9_]+\.ipynb", lesson.notebook)


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_lesson_is_small(path):
    assert path.stat().st_size < MAX_BYTES, f"{path.name} is {path.stat().st_size} bytes"
    notebook = read(path)
    widget_state = json.dumps(notebook["metadata"].get("widgets", {}))
    assert len(widget_state) < 50_000, "strip the stored widget state"
    for cell in notebook["cells"]:
        for output in cell.get("outputs", []):
            image = output.get("data", {}).get("image/png", "")
            assert len(image) < MAX_IMAGE_CHARS, f"figure too large in: {source(cell)[:80]}"


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_lesson_has_compared_cells(path):
    code = [source(c) for c in read(path)["cells"] if c["cell_type"] == "code"]
    assert any(text.startswith(CHECK_MARKER) for text in code), "mark the cells with the numbers"


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_lesson_opens_with_questions_and_objectives_and_ends_with_key_points(path):
    cells = read(path)["cells"]
    first = source(cells[0])
    assert cells[0]["cell_type"] == "markdown" and first.startswith(f"# Lesson {path.name[:2]}")
    assert "Questions" in first and "Objectives" in first
    tail = [source(c) for c in cells[-3:] if c["cell_type"] == "markdown"]
    assert any("## Key points" in text for text in tail), "key points belong at the end"


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_lesson_imports_the_module_and_defines_no_library_code(path):
    code = [source(c) for c in read(path)["cells"] if c["cell_type"] == "code"]
    assert any("reasoneval_mini" in text for text in code)
    for text in code:
        assert not re.search(r"^\s*(def|class)\s", text, re.MULTILINE), text[:200]


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_lesson_has_an_explorer_and_stored_outputs(path):
    code = [c for c in read(path)["cells"] if c["cell_type"] == "code"]
    assert any(re.search(r"make_\w*explorer\(", source(c)) for c in code)
    assert all(c.get("execution_count") is not None for c in code), "execute and keep outputs"


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_lesson_has_a_figure(path):
    outputs = [o for c in read(path)["cells"] for o in c.get("outputs", [])]
    assert any("image/png" in o.get("data", {}) for o in outputs)


@pytest.mark.parametrize("path", [p for p in LESSONS if p.name[:2] in EXERCISE_FOR],
                         ids=lambda p: p.name)
def test_lesson_points_to_its_exercises(path):
    markdown = "\n".join(source(c) for c in read(path)["cells"] if c["cell_type"] == "markdown")
    for exercise_notebook in EXERCISE_FOR[path.name[:2]]:
        assert exercise_notebook in markdown


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_compared_cells_hold_text_only(path):
    for cell in read(path)["cells"]:
        if cell["cell_type"] == "code" and source(cell).startswith(CHECK_MARKER):
            assert cell["outputs"], f"compared cell has no output: {source(cell)[:80]}"
            for output in cell["outputs"]:
                assert output["output_type"] in ("stream", "execute_result"), output["output_type"]
                assert set(output.get("data", {})) <= {"text/plain"}, "never compare images"


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_stored_text_has_no_addresses_paths_or_timings(path):
    for cell in read(path)["cells"]:
        for text in text_outputs(cell):
            for pattern in (ADDRESS, ABSOLUTE_PATH, TIMING):
                found = pattern.search(text)
                assert not found, f"{found.group(0)!r} in output of: {source(cell)[:80]}"


@pytest.mark.parametrize("bad", [
    "<Figure at 0x7f3a2b1c4d90>", "Python (/work/venv/bin/python)", r"C:\Users\ana\course",
    "/home/ana/notebooks", "Wall time: 3 ms", "took 2 s", "ran in 1.234 s",
])
def test_output_patterns_catch_unstable_text(bad):
    assert any(p.search(bad) for p in (ADDRESS, ABSOLUTE_PATH, TIMING))


@pytest.mark.parametrize("good", [
    "timeout 2.0 s", "3/4 and 1/2", "pass@5 = 0.50 (n=20, k=5)", "ValueError: k must be in 1..n=5",
    "exact value of float 0.1 = 3602879701896397/36028797018963968", "exercises/ex01_answer_equivalence.ipynb",
])
def test_output_patterns_accept_stable_text(good):
    assert not any(p.search(good) for p in (ADDRESS, ABSOLUTE_PATH, TIMING))


def markdown_sections(cells):
    """The ``## `` headings and ``**Next:**`` lines of the markdown cells, in order."""
    found = []
    for cell in cells:
        if cell["cell_type"] != "markdown":
            continue
        for line in source(cell).splitlines():
            if line.startswith("## ") or line.startswith("**Next:**"):
                found.append("Next" if line.startswith("**Next:**") else line[3:].strip())
    return found


def figure_cells(cells):
    return [i for i, cell in enumerate(cells)
            if any("image/png" in o.get("data", {}) for o in cell.get("outputs", []))]


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_lesson_states_its_time(path):
    assert re.search(r"\*Time: about \d+ minutes", source(read(path)["cells"][0]))


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_lesson_ends_with_key_points_then_exercises_then_next(path):
    assert markdown_sections(read(path)["cells"])[-3:] == ["Key points", "Exercises", "Next"]


@pytest.mark.parametrize("path", LESSONS[:-1], ids=lambda p: p.name)
def test_next_line_links_the_next_lesson_of_the_course_map(path):
    # A link, not just a name: a click in JupyterLab opens the next lesson.
    following = LESSONS[LESSONS.index(path) + 1].name
    next_lines = [line for cell in read(path)["cells"] if cell["cell_type"] == "markdown"
                  for line in source(cell).splitlines() if line.startswith("**Next:**")]
    assert next_lines and f"[`{following}`]({following})" in next_lines[-1]
    assert (NOTEBOOKS / following).is_file()


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_lesson_has_an_inline_challenge_with_a_folded_answer(path):
    markdown = "\n".join(source(c) for c in read(path)["cells"] if c["cell_type"] == "markdown")
    assert "<summary>Answer</summary>" in markdown
    assert markdown.count("<details>") == markdown.count("</details>")


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_every_figure_is_followed_by_a_one_line_description(path):
    cells = read(path)["cells"]
    for index in figure_cells(cells):
        following = cells[index + 1]
        assert following["cell_type"] == "markdown", source(cells[index])[:80]
        assert source(following).startswith("*Figure: "), source(cells[index])[:80]


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_figures_are_wide_enough_for_a_projector(path):
    import base64
    import struct

    for cell in read(path)["cells"]:
        for output in cell.get("outputs", []):
            image = output.get("data", {}).get("image/png")
            if image:
                png = base64.b64decode("".join(image) if isinstance(image, list) else image)
                width, height = struct.unpack(">II", png[16:24])  # the IHDR chunk
                assert width >= MIN_FIGURE_WIDTH_PX, (width, height, source(cell)[:80])
