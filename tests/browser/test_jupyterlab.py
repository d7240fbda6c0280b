"""The course as a learner sees it: JupyterLab in headless Chromium, driven by Playwright.

For each lesson in notebooks/, and the zh-CN edition of lesson 02: Restart
Kernel and Run All (accepting the dialog), wait until the kernel is idle and
every code cell has run, then check what the page shows: no error output,
every explorer rendered as live controls (not "Loading widget...", "model not
found" or a text repr) labelled in the lesson's language, one control moved
in the browser changes that explorer's output, every figure displayed, and
the Log Console empty. Then one exercise, in English and in its zh-CN
edition: untouched, its check says "not attempted yet"; type a correct answer
into a stub, run it and its check, and see the check say all tests pass, in
the notebook's language. The texts in another language come from the shipped
catalogue (tests/translations.py), never typed into this file.

Runs on a temporary copy of notebooks/ and exercises/ (the checkout is never
written) and imports the package of this checkout (PYTHONPATH). Skipped when
Playwright, Chromium or JupyterLab is missing; with CI=true it fails instead.
Deselect with ``-m "not browser"``. Screenshots go to each test's tmp_path.
"""

import importlib.util
import json
import os
import re
import time
from pathlib import Path

import pytest

from jupyterlab_session import chromium_browser, copy_course, find_chromium, running_lab
from reasoneval_mini.editions import edition_path
from translations import shipped_catalogue

pytestmark = pytest.mark.browser

REPOSITORY = Path(__file__).resolve().parents[2]
LESSONS = sorted(path.name for path in (REPOSITORY / "notebooks").glob("[0-9][0-9]_*.ipynb"))
#: The translated lessons run too: one is enough to see an edition's kernel, widgets and
#: labels work (each costs a lesson's run); the others run the same program (tests/editions).
EDITION_LESSONS = (("02_pass_at_k.ipynb", "zh-CN"),)
#: The labels, as catalogue ids, that a lesson's explorers show: in an edition, their translations.
EXPLORER_LABELS = {"02": ("n samples", "c correct")}
#: Lessons that have an explorer today: a floor, so that a lesson losing its
#: explorer (or the detection below finding none) cannot pass silently.
LESSONS_WITH_EXPLORERS = ("01", "02", "03", "04", "05")
EXERCISE = "ex01_answer_equivalence.ipynb"
EXERCISE_LANGUAGES = ("en", "zh-CN")

# Timeouts, in seconds, sized for a busy 2-core machine.
OPEN_TIMEOUT = 120       # page load, kernel start
RUN_ALL_TIMEOUT = 150    # one lesson, Restart Kernel and Run All
WIDGET_TIMEOUT = 30      # an explorer's views to render
INTERACTION_TIMEOUT = 30  # an explorer's output to follow a control

WIDGET_VIEW_MIME = "application/vnd.jupyter.widget-view+json"
#: A widget shown as text instead of as a widget, e.g. "VBox(children=(IntSlider(value=...".
WIDGET_REPR = re.compile(r"\b(?:interactive|[A-Z][A-Za-z]*(?:Box|Slider|Text|Textarea|Dropdown|"
                         r"Button|Output|HTML|Tab|Accordion))\((?:children|value|description|options)=")
WIDGET_FAILURES = ("Loading widget", "model not found", "Error displaying widget",
                   "Failed to load model class")
#: An explorer is built by a line calling some `..._explorer(` function (not an import).
EXPLORER_CALL = re.compile(r"^(?!\s*(?:from|import)\b).*\b\w*_explorer\(.*$", re.MULTILINE)
#: A cell meant to show a figure: it calls plt.show() or ends with the bare name `figure`.
FIGURE_CELL = re.compile(r"plt\.show\(\)|\A(?:.*\n)*figure\s*\Z")
#: feedback.check's words for "k of k public checks pass" (an ngettext pair) and for a right
#: prediction, and the state of an untouched stub: catalogue ids.
PUBLIC_CHECKS = ("{passed} of {count} public check passes", "{passed} of {count} public checks pass")
RIGHT = "Right."
FAILED_TEST = "  FAIL  {call}"   # a failed test's line; its words before the call start the line
NOT_ATTEMPTED = "not attempted yet"

# The current notebook, as the page shows it: kernel status and, per code cell,
# the prompt ("[3]:", "[*]:", "[ ]:"), the source and a summary of each output.
NOTEBOOK_STATE = """() => {
  const panel = window.jupyterapp.shell.currentWidget;
  if (!panel || !panel.content || !panel.sessionContext) return null;
  const summary = output => ({
    type: output.output_type,
    mimes: Object.keys(output.data || {}),
    text: [].concat(output.text || (output.data || {})['text/plain'] || []).join(''),
    error: output.output_type === 'error'
      ? output.ename + ': ' + output.evalue : null,
  });
  const cells = panel.content.widgets.filter(cell => cell.model.type === 'code').map(cell => ({
    prompt: (cell.node.querySelector('.jp-InputArea-prompt') || {}).textContent || '',
    source: cell.model.sharedModel.getSource(),
    outputs: cell.model.outputs.toJSON().map(summary),
  }));
  const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
  return {path: panel.context.path, status: kernel ? kernel.status : 'no kernel', cells};
}"""

# What an explorer shows as its result: HTML, Output and Textarea views (not the
# controls, whose own readout changes when they move even if the callback fails).
EXPLORER_RESULT = """node => {
  const parts = [...node.querySelectorAll('.widget-html, .widget-htmlmath, .widget-output, .widget-textarea')];
  if (!parts.length) return null;
  return parts.map(part => [
    part.textContent,
    ...[...part.querySelectorAll('textarea')].map(box => box.value),
    ...[...part.querySelectorAll('img')].map(img => img.src.length + ':' + img.src.slice(-80)),
  ].join('|')).join('\\n');
}"""

BROKEN_IMAGES = """node => [...node.querySelectorAll('.jp-OutputArea-output img')]
  .filter(img => !(img.complete && img.naturalWidth > 0)).length"""


# --- fixtures -------------------------------------------------------------------------------

def _unavailable(reason):
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{reason}; CI=true, so the browser test must run (see .ci/browser-setup)",
                    pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="module")
def chromium_path():
    for module in ("jupyterlab", "ipywidgets", "playwright"):
        if importlib.util.find_spec(module) is None:
            _unavailable(f"{module} is not installed "
                         f"({'pip install playwright' if module == 'playwright' else 'pip install -e .[course]'})")
    path = find_chromium()
    if path is None:
        _unavailable("no chromium on PATH nor at /usr/bin/chromium (apt-get install chromium)")
    return path


@pytest.fixture(scope="module")
def lab(chromium_path, tmp_path_factory):
    """A JupyterLab serving a temporary copy of notebooks/ and exercises/."""
    base = tmp_path_factory.mktemp("jupyterlab")
    root = copy_course(REPOSITORY, base / "course")
    with running_lab(root, base / "home", python_path=[REPOSITORY]) as server:
        yield server


@pytest.fixture(scope="module")
def browser(chromium_path):
    with chromium_browser(chromium_path) as chromium:
        yield chromium


@pytest.fixture
def page(browser, lab):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        yield context.new_page()
    finally:
        try:  # stop this test's kernel now: the next lessons need the CPU
            context.pages[0].evaluate("() => window.jupyterapp.serviceManager.sessions.shutdownAll()")
        except Exception:  # the page may be broken; the server's teardown stops it anyway
            pass
        context.close()


# --- driving the page -------------------------------------------------------------------------

class Failures(list):
    """Problems found on one page; the assertion names them and the screenshot."""

    first_cell = None

    def add(self, message, cell=None):
        """Record *message*; the screenshot shows the first code *cell* with a problem."""
        self.append(message)
        if self.first_cell is None and cell is not None:
            self.first_cell = cell

    def check(self, page, screenshot):
        if self.first_cell is not None:
            show_code_cell(page, self.first_cell)
        page.screenshot(path=str(screenshot))
        assert not self, "\n".join([*self, f"screenshot: {screenshot}"])


def open_notebook(page, lab, path):
    page.goto(lab.url(path), timeout=OPEN_TIMEOUT * 1000)
    try:
        page.wait_for_function(
            """path => {
              const panel = window.jupyterapp && window.jupyterapp.shell.currentWidget;
              const kernel = panel && panel.sessionContext && panel.sessionContext.session
                             && panel.sessionContext.session.kernel;
              return Boolean(panel && panel.context && panel.context.path === path && kernel
                     && kernel.status === 'idle');
            }""", arg=path, timeout=OPEN_TIMEOUT * 1000, polling=500)
    except Exception as error:
        raise AssertionError(f"{path} did not open with an idle kernel within {OPEN_TIMEOUT} s: "
                             f"{error}\nserver log:\n{lab.log_tail()}") from None


def check_not_modified_on_open(page, failures):
    """Opening a notebook (kernel started, nothing run) must not mark it modified."""
    dirty = page.evaluate("() => window.jupyterapp.shell.currentWidget.context.model.dirty")
    if dirty:
        failures.add("the notebook is marked modified as soon as it opens: its stored metadata "
                     "differs from what JupyterLab writes (e.g. the kernelspec's display name)")


def command(page, name):
    """Start a JupyterLab command, as its menu item would; does not wait for it to finish."""
    page.evaluate("name => { window.jupyterapp.commands.execute(name); }", name)


def notebook_state(page):
    return page.evaluate(NOTEBOOK_STATE)


def wait_until_idle(page, timeout, *, settled_polls=3):
    """Wait until the kernel is idle, no cell waits ("[*]:") and some cell has run.

    The condition must hold for *settled_polls* polls in a row: between the
    restart and the first queued cell the kernel is briefly idle too.
    """
    deadline, streak, state = time.monotonic() + timeout, 0, None
    while time.monotonic() < deadline:
        state = notebook_state(page)
        prompts = [cell["prompt"] for cell in state["cells"]]
        done = (state["status"] == "idle" and not any("*" in p for p in prompts)
                and any(re.search(r"\d", p) for p in prompts))
        streak = streak + 1 if done else 0
        if streak >= settled_polls:
            return state
        time.sleep(0.5)
    status = state and (state["status"], [cell["prompt"] for cell in state["cells"]])
    raise AssertionError(f"kernel not idle with every cell run after {timeout} s: {status}")


def restart_and_run_all(page):
    """Clear the outputs (and so the execution counts), then Restart Kernel and Run All."""
    command(page, "notebook:clear-all-cell-outputs")
    command(page, "notebook:restart-run-all")
    page.locator(".jp-Dialog .jp-mod-accept").click(timeout=30_000)  # "Confirm Kernel Restart"
    return wait_until_idle(page, RUN_ALL_TIMEOUT)


def show_code_cell(page, index):
    """Scroll the notebook so that code cell *index* is at the top, as JupyterLab itself does."""
    page.evaluate("""index => {
      const notebook = window.jupyterapp.shell.currentWidget.content;
      const cell = notebook.widgets.filter(cell => cell.model.type === 'code')[index];
      return notebook.scrollToCell(cell, 'start');
    }""", index)
    page.wait_for_timeout(500)  # let the outputs paint


def code_cell(page, index):
    return page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell").nth(index)


def last_lines(text, count=3):
    """The last *count* non-blank lines of *text* (a traceback's end names the error)."""
    return " / ".join([line.strip() for line in text.splitlines() if line.strip()][-count:])


def short(source, lines=2):
    return " / ".join(source.strip().splitlines()[:lines])[:120]


def all_pass(language):
    """A pattern for the line feedback.check starts when every public check passes (k of k),
    or when a typed prediction is right, in *language*: built from the catalogue's words.

    >>> bool(all_pass("en").search("3 of 3 public checks pass. The grader adds hidden checks"))
    True
    >>> bool(all_pass("en").search("2 of 3 public checks pass. For a hint, run hint('x')."))
    False
    """
    catalogue = shipped_catalogue(language)
    forms = dict.fromkeys(catalogue.ngettext(*PUBLIC_CHECKS, count) for count in (1, 2))
    patterns = [re.escape(catalogue.gettext(RIGHT)) + "$"]
    for number, form in enumerate(forms):  # the singular and plural forms (Chinese has one)
        form = re.escape(form)
        # The same number twice, whichever of {passed} and {count} the language puts first.
        first, second = sorted((r"\{passed\}", r"\{count\}"), key=form.index)
        patterns.append(form.replace(first, rf"(?P<k{number}>\d+)").replace(second, rf"(?P=k{number})"))
    return re.compile(f"^(?:{'|'.join(patterns)})", re.MULTILINE)


# --- the checks -------------------------------------------------------------------------------

def check_every_cell_ran(state, failures):
    prompts = [cell["prompt"].strip() for cell in state["cells"]]
    expected = [f"[{n}]:" for n in range(1, len(prompts) + 1)]
    if prompts != expected:
        not_run = [f"cell {i} ({short(c['source'], 1)}): {p or 'no prompt'}"
                   for i, (c, p, e) in enumerate(zip(state["cells"], prompts, expected)) if p != e]
        failures.add(f"Run All did not run every code cell once, in order: {not_run}")


def check_no_errors(page, state, failures):
    for index, cell in enumerate(state["cells"]):
        for output in cell["outputs"]:
            if output["error"]:
                failures.add(f"cell {index} ({short(cell['source'])}) shows {output['error']}",
                             cell=index)
            elif output["type"] == "stream" and "Traceback" in output["text"]:
                failures.add(f"cell {index} ({short(cell['source'])}) prints a traceback: "
                             f"{last_lines(output['text'])}", cell=index)
            if WIDGET_REPR.search(output["text"]) and WIDGET_VIEW_MIME not in output["mimes"]:
                failures.add(f"cell {index} ({short(cell['source'])}) shows a widget as text, "
                             f"not as controls: {output['text'][:200]!r}", cell=index)
    shown = page.locator('.jp-NotebookPanel:not(.lm-mod-hidden) '
                         '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')
    for text in shown.all_inner_texts():
        if "Traceback" in text or "Error" in text:
            failures.add(f"an output shows an error in red: {last_lines(text)}")


def explorer_cells(state):
    return [index for index, cell in enumerate(state["cells"]) if EXPLORER_CALL.search(cell["source"])]


def wait_for_widgets(page, index):
    """Wait until cell *index* shows rendered widget views; return what its outputs say."""
    outputs = code_cell(page, index).locator(".jp-Cell-outputArea")
    deadline = time.monotonic() + WIDGET_TIMEOUT
    while True:
        text = outputs.text_content()  # not inner_text: off-screen cells are not laid out
        rendered = outputs.locator(".jupyter-widgets").count()
        if rendered and not any(failure in text for failure in WIDGET_FAILURES):
            return text
        if time.monotonic() > deadline:
            return text if rendered else f"(no widget view rendered) {text}"
        time.sleep(0.5)


def move_one_control(cell):
    """Move the explorer's first slider, else type into its first text box, else press its button."""
    handle = cell.locator(".widget-slider .noUi-handle")
    if handle.count():
        handle.first.focus()
        handle.first.press("ArrowRight")
        return "pressed ArrowRight on the first slider"
    text_box = cell.locator(".widget-text input")
    if text_box.count():
        text_box.first.click()
        text_box.first.press("Control+a")
        text_box.first.press_sequentially("2")
        return "typed '2' into the first text box"
    button = cell.locator("button.jupyter-button, .widget-button")
    if button.count():
        button.first.click()
        return "clicked the first button"
    return None


def check_labels(cell, index, source, lesson, language, failures):
    """The explorer's controls are labelled in *language*: the catalogue's words for its ids."""
    catalogue = shipped_catalogue(language)
    shown = [text.strip() for text in cell.locator(".jp-OutputArea .widget-label").all_text_contents()
             if text.strip()]
    for label in EXPLORER_LABELS.get(lesson[:2], ()):
        expected = catalogue.gettext(label)
        if expected not in shown:
            failures.add(f"explorer cell {index} ({source}) shows the labels {shown}, not "
                         f"{expected!r} ({label!r} in {language})", cell=index)


def check_explorers(page, state, lesson, language, failures, screenshots):
    indices = explorer_cells(state)
    if lesson[:2] in LESSONS_WITH_EXPLORERS and not indices:
        failures.add(f"{lesson}: no cell builds an explorer (a line calling ..._explorer(...))")
    for index in indices:
        source = EXPLORER_CALL.search(state["cells"][index]["source"]).group(0).strip()[:100]
        outputs = state["cells"][index]["outputs"]
        if not any(WIDGET_VIEW_MIME in output["mimes"] for output in outputs):
            failures.add(f"explorer cell {index} ({source}) displays no widget; it shows "
                         f"{[o['text'][:120] or o['mimes'] for o in outputs]}", cell=index)
            continue
        show_code_cell(page, index)
        text = wait_for_widgets(page, index)
        problems = [failure for failure in WIDGET_FAILURES if failure in text]
        if "(no widget view rendered)" in text or problems or WIDGET_REPR.search(text):
            failures.add(f"explorer cell {index} ({source}) is not live after {WIDGET_TIMEOUT} s: "
                         f"{text[:300]!r}", cell=index)
            continue
        cell = code_cell(page, index)
        check_labels(cell, index, source, lesson, language, failures)
        output_area = cell.locator(".jp-Cell-outputArea")
        controls = cell.locator(".jp-OutputArea .widget-slider, .jp-OutputArea .widget-text, "
                                ".jp-OutputArea .widget-dropdown, .jp-OutputArea button, "
                                ".jp-OutputArea select, .jp-OutputArea input").count()
        if not controls:
            failures.add(f"explorer cell {index} ({source}) has no control to move", cell=index)
            continue
        show_code_cell(page, index)
        before = output_area.evaluate(EXPLORER_RESULT)
        if before is None:
            failures.add(f"explorer cell {index} ({source}) has no HTML, Output or Textarea "
                         f"result view to watch", cell=index)
            continue
        action = move_one_control(cell)
        after, deadline = before, time.monotonic() + INTERACTION_TIMEOUT
        while time.monotonic() < deadline:
            time.sleep(0.5)
            after = output_area.evaluate(EXPLORER_RESULT)
            if after != before and notebook_state(page)["status"] == "idle":
                break
        output_area.screenshot(path=str(screenshots / f"{lesson[:2]}-explorer-cell{index}.png"))
        if after == before:
            failures.add(f"explorer cell {index} ({source}): {action}, but its output did not "
                         f"change within {INTERACTION_TIMEOUT} s; it still shows {before[:200]!r}",
                         cell=index)
        elif "Traceback" in after:
            failures.add(f"explorer cell {index} ({source}): after {action} it shows an error: "
                         f"{after[:300]!r}", cell=index)


def check_figures(page, state, failures):
    for index, cell in enumerate(state["cells"]):
        if not FIGURE_CELL.search(cell["source"].strip()):
            continue
        if not any(mime.startswith("image/") for o in cell["outputs"] for mime in o["mimes"]):
            failures.add(f"figure cell {index} ({short(cell['source'])}) has no image output: "
                         f"{[o['text'][:120] or o['mimes'] for o in cell['outputs']]}", cell=index)
        elif not code_cell(page, index).locator(".jp-OutputArea-output img").count():
            failures.add(f"figure cell {index} ({short(cell['source'])}) shows no image",
                         cell=index)
    broken = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)").evaluate(BROKEN_IMAGES)
    if broken:
        failures.add(f"{broken} output image(s) did not load")


def check_log_console(page, failures):
    """Open the Log Console (View > Show Log Console) for this notebook: it must be empty."""
    command(page, "logconsole:open")
    panel = page.locator(".jp-LogConsolePanel")
    panel.wait_for(timeout=30_000)
    page.wait_for_timeout(1000)  # let late messages (a widget callback's error) arrive
    entries = panel.locator(".jp-OutputArea:not(.lm-mod-hidden) .jp-OutputArea-child")
    texts = [text for text in entries.all_inner_texts()]
    if texts:
        failures.add(f"the Log Console has {len(texts)} entr{'y' if len(texts) == 1 else 'ies'}: "
                        + " || ".join(last_lines(text) for text in texts[:3]))


# --- the tests --------------------------------------------------------------------------------

def edition(name, language):
    """The pytest param ``(name, language)``, named as the edition's path: ``zh-CN/02_pass_at_k.ipynb``."""
    return pytest.param(name, language, id=edition_path(name, language).as_posix())


@pytest.mark.parametrize("lesson, language", [edition(name, "en") for name in LESSONS]
                         + [edition(name, language) for name, language in EDITION_LESSONS])
def test_lesson_runs_in_jupyterlab_with_live_explorers_figures_and_empty_log(page, lab, lesson,
                                                                              language, tmp_path):
    failures = Failures()
    open_notebook(page, lab, edition_path(f"notebooks/{lesson}", language).as_posix())
    check_not_modified_on_open(page, failures)
    state = restart_and_run_all(page)
    check_every_cell_ran(state, failures)
    check_no_errors(page, state, failures)
    check_figures(page, state, failures)
    check_explorers(page, state, lesson, language, failures, tmp_path)
    check_log_console(page, failures)
    failures.check(page, tmp_path / f"{lesson[:2]}.png")


def solution_of(exercise, grade_id, language):
    """The *language* solutions notebook's answer for *grade_id*, without the BEGIN/END SOLUTION lines."""
    path = edition_path(f"solutions/{exercise}", language)
    notebook = json.loads((REPOSITORY / path).read_text(encoding="utf-8"))
    for cell in notebook["cells"]:
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == grade_id:
            return "\n".join(line for line in "".join(cell["source"]).splitlines()
                             if "### BEGIN SOLUTION" not in line and "### END SOLUTION" not in line)
    raise AssertionError(f"{path.as_posix()} has no cell {grade_id!r}")


@pytest.mark.parametrize("exercise, language",
                         [edition(EXERCISE, language) for language in EXERCISE_LANGUAGES])
def test_exercise_check_says_all_pass_after_typing_a_correct_answer(page, lab, exercise, language,
                                                                    tmp_path):
    failures = Failures()
    catalogue = shipped_catalogue(language)
    not_attempted = catalogue.gettext(NOT_ATTEMPTED)
    path = edition_path(f"exercises/{exercise}", language).as_posix()
    open_notebook(page, lab, path)
    check_not_modified_on_open(page, failures)
    state = restart_and_run_all(page)
    check_every_cell_ran(state, failures)
    check_no_errors(page, state, failures)
    stub = next(i for i, cell in enumerate(state["cells"])
                if "raise NotImplementedError()" in cell["source"])
    grade_id = page.evaluate(
        """index => window.jupyterapp.shell.currentWidget.content.widgets
             .filter(cell => cell.model.type === 'code')[index].model.getMetadata('nbgrader').grade_id""",
        stub)
    before = "".join(o["text"] for o in state["cells"][stub + 1]["outputs"])
    if not_attempted not in before:
        failures.add(f"before an answer, the check of {grade_id} should say {not_attempted!r}; "
                     f"it says {before!r}")

    # Type the answer into the stub as a learner would: click, select all, replace.
    # insert_text types it as one input (like a paste), so the editor's
    # auto-indent does not re-indent the lines.
    editor = code_cell(page, stub).locator(".cm-content")
    editor.click()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(solution_of(exercise, grade_id, language))
    page.keyboard.press("Shift+Enter")   # run the answer; the check cell is selected next
    page.keyboard.press("Shift+Enter")   # run the check
    deadline = time.monotonic() + RUN_ALL_TIMEOUT
    while True:
        state = wait_until_idle(page, RUN_ALL_TIMEOUT)
        report = "".join(o["text"] for o in state["cells"][stub + 1]["outputs"])
        if not_attempted not in report or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    failures.first_cell = stub + 1  # the screenshot shows the check's report
    if "raise NotImplementedError()" in state["cells"][stub]["source"]:
        failures.add(f"typing into the stub did not replace it: {state['cells'][stub]['source']!r}")
    failed = re.compile("^" + re.escape(catalogue.gettext(FAILED_TEST).split("{call}")[0]), re.M)
    if not all_pass(language).search(report) or failed.search(report):
        failures.add(f"the check of {grade_id} does not say all tests pass in {language}: {report!r}")
    check_no_errors(page, state, failures)
    check_log_console(page, failures)
    failures.check(page, tmp_path / "exercise.png")
