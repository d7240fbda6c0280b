"""The execution explorer of lesson 03: pick a problem and a variant, run it, read the record.

:func:`run_chosen_sample` does the work and is unit-tested with real runs;
:func:`make_execution_explorer` only wires two dropdowns and a button to it,
so it can be tested headlessly: set ``.value`` on the dropdowns, call
``run_button.click()`` and read ``box.result``.
"""

import html

from reasoneval_mini.lessons.sample_pool import check_problems
from reasoneval_mini.lessons.synthetic_completions import VARIANTS, build_completion
from reasoneval_mini.executor.samples import execute_samples
from reasoneval_mini.datasets.humaneval import build_humaneval_program
from reasoneval_mini.support.i18n import N_, _

#: The controls' labels (the options, task ids and variant names, are ids: never translated).
PROBLEM_LABEL, VARIANT_LABEL, RUN_LABEL = N_("problem"), N_("variant"), N_("Run sample")


def run_chosen_sample(problem, variant, *, timeout=1.0):
    """Build one synthetic sample for *problem*, run it, return what happened.

    *problem* is a HumanEval problem dict and *variant* a key of
    :data:`~reasoneval_mini.lessons.synthetic_completions.VARIANTS`. The sample goes
    through :func:`execute_samples` (one item, no progress bar), exactly as
    in an evaluation, so ``not_generated`` becomes a ``not_run`` record.
    Returns a dict with ``task_id``, ``variant``, ``completion`` (``None``
    when nothing was generated) and ``record`` (the execution record).
    Raises ``ValueError`` for an unknown variant or a bad timeout.

    >>> problem = {"task_id": "demo/0", "entry_point": "add", "prompt": "def add(a, b):\\n",
    ...            "canonical_solution": "    return a + b\\n",
    ...            "test": "def check(f):\\n    assert f(2, 3) == 5\\n"}
    >>> run_chosen_sample(problem, "off_by_one")["record"]["status"]
    'assertion_failed'
    >>> run_chosen_sample(problem, "not_generated")["record"]["detail"]
    'no program to run (program is None)'
    """
    completion = build_completion(problem, variant)
    program = None if completion is None else build_humaneval_program(problem, completion)
    item = {"sample_id": f"{problem['task_id']}/{variant}", "task_id": problem["task_id"],
            "program": program}
    record = execute_samples([item], timeout=timeout, workers=1, progress=False)[0]
    return {"task_id": problem["task_id"], "variant": variant,
            "completion": completion, "record": record}


def format_sample_result(result):
    """The explorer's text: the completion, then status and detail (never the duration).

    >>> print(format_sample_result({"task_id": "T", "variant": "not_generated", "completion": None,
    ...                             "record": {"status": "not_run", "detail": "no program"}}))
    T, variant not_generated
    (no completion was generated)
    status: not_run
    detail: no program
    """
    completion = result["completion"]
    shown = "(no completion was generated)" if completion is None else completion.rstrip("\n")
    record = result["record"]
    return (f"{result['task_id']}, variant {result['variant']}\n{shown}\n"
            f"status: {record['status']}\ndetail: {record['detail']}")


def make_execution_explorer(problems, *, task_id=None, variant="canonical", timeout=1.0):
    """Build the widget: a problem dropdown, a variant dropdown and a Run button.

    *problems* is a non-empty list of HumanEval problem dicts. Returns an
    ``ipywidgets.VBox`` with extra attributes ``task_dropdown``,
    ``variant_dropdown``, ``run_button``, ``view`` (an ``HTML`` widget
    with :func:`format_sample_result`) and ``result`` (the latest
    :func:`run_chosen_sample` dict, ``None`` before the first run). Nothing
    runs until the button is pressed: a sample may take *timeout* seconds.
    Raises ``ValueError`` for an empty list or a problem without HumanEval's
    keys (see :func:`~reasoneval_mini.lessons.sample_pool.check_problems`), an
    unknown *task_id* or *variant*; ``ImportError`` without ipywidgets. The
    labels and prompts are in the current language when the explorer is built;
    the result text (:func:`format_sample_result`) stays English, as the lesson prints it.
    """
    try:
        import ipywidgets as widgets
    except ImportError as error:  # the core course runs without widgets
        raise ImportError('the explorer needs ipywidgets: pip install -e ".[course]"') from error
    check_problems(problems)
    by_id = {problem["task_id"]: problem for problem in problems}
    task_id = problems[0]["task_id"] if task_id is None else task_id
    if task_id not in by_id:
        raise ValueError(f"unknown task_id {task_id!r}; expected one of {list(by_id)[:5]}...")
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; expected one of {', '.join(VARIANTS)}")
    task_dropdown = widgets.Dropdown(options=list(by_id), value=task_id,
                                     description=_(PROBLEM_LABEL))
    variant_dropdown = widgets.Dropdown(options=list(VARIANTS), value=variant,
                                        description=_(VARIANT_LABEL))
    run_button = widgets.Button(description=_(RUN_LABEL), icon="play")
    # The button's name is a field, so that the prompt names the button as it is labelled.
    prompt = html.escape(_("Choose a problem and a variant, then press {button}.")).format(
        button=f"<b>{html.escape(run_button.description)}</b>")
    view = widgets.HTML(f"<i>{prompt}</i>")
    box = widgets.VBox([widgets.HBox([task_dropdown, variant_dropdown, run_button]), view])
    box.result = None
    running = _("running...")

    def run(_button=None):
        view.value = f"<i>{html.escape(running)}</i>"
        box.result = run_chosen_sample(by_id[task_dropdown.value], variant_dropdown.value,
                                       timeout=timeout)
        view.value = f"<pre>{html.escape(format_sample_result(box.result))}</pre>"

    run_button.on_click(run)
    box.task_dropdown, box.variant_dropdown = task_dropdown, variant_dropdown
    box.run_button, box.view = run_button, view
    return box
