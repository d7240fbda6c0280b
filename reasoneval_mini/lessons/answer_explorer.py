"""An interactive answer checker for lesson 01, built on a pure function.

:func:`describe_answer_verdicts` does all the work and is unit-tested;
:func:`make_answer_explorer` only wires two text boxes to it, so the widget
can be tested headlessly by setting ``.value`` on its boxes.
:func:`plot_pipeline_verdicts` draws where the scorers disagree.
"""

from reasoneval_mini.lessons.answer_pipelines import PIPELINES, compare_answer_pipelines
from reasoneval_mini.lessons.figure_text import figure_text, prepare_figure_fonts
from reasoneval_mini.lessons.palette import DPI, FIGSIZE, VERDICT_COLOURS
from reasoneval_mini.support.arguments import ArgumentTypeError
from reasoneval_mini.support.i18n import N_, _


#: The text boxes' labels: the names of describe_answer_verdicts' two arguments.
PREDICTION_LABEL, REFERENCE_LABEL = N_("prediction"), N_("reference")

#: What each verdict means, in the words the lesson uses.
VERDICT_MEANINGS = {
    True: "equal",
    False: "different",
    None: "unparsed: outside the answer space; a format failure, not a wrong number",
}


def describe_answer_verdicts(prediction, reference):
    """Return a few lines of text: each pipeline's verdict on the pair.

    Never raises for text input: a broken reference is reported as the
    ``ValueError`` the scorer raises, because that is the lesson (a data
    bug stops the scorer). Non-``str`` inputs still raise ``ValueError``.

    >>> print(describe_answer_verdicts("0.5", "1/2"))
    exact_match     False  (different)
    gsm8k_regex     False  (different)
    course_marker   False  (different)
    exact_rational  True  (equal)

    Surprising: the *reference* can be the broken side.

    >>> print(describe_answer_verdicts("1080", "1,080"))
    ValueError: reference '1,080' is not a rational number ...
    """
    if not isinstance(reference, str) or not isinstance(prediction, str):
        raise ArgumentTypeError(
            f"prediction and reference must be str, got {prediction!r} and {reference!r}"
        )
    try:
        row = compare_answer_pipelines(prediction, reference)
    except ValueError as error:
        return f"ValueError: {error}"
    return "\n".join(
        f"{name:<15} {row[name]}  ({VERDICT_MEANINGS[row[name]]})" for name in PIPELINES
    )


def make_answer_explorer(prediction="1,000", reference="1000"):
    """Build the widget: two text boxes and the verdicts, updated as you type.

    Returns an ``ipywidgets.VBox`` with extra attributes ``prediction_box``,
    ``reference_box`` (``Text`` widgets) and ``verdicts`` (a ``Textarea``
    whose ``.value`` is :func:`describe_answer_verdicts` of the boxes).
    The labels are in the current language when the explorer is built.
    Needs ``ipywidgets``; raises ``ImportError`` with a hint if it is missing.
    """
    try:
        import ipywidgets as widgets
    except ImportError as error:  # the core course runs without widgets
        raise ImportError('the explorer needs ipywidgets: pip install -e ".[course]"') from error
    prediction_box = widgets.Text(value=prediction, description=_(PREDICTION_LABEL))
    reference_box = widgets.Text(value=reference, description=_(REFERENCE_LABEL))
    verdicts = widgets.Textarea(
        value="", disabled=True, layout=widgets.Layout(width="95%", height="5.5em")
    )

    def update(_change=None):
        verdicts.value = describe_answer_verdicts(prediction_box.value, reference_box.value)

    prediction_box.observe(update, names="value")
    reference_box.observe(update, names="value")
    update()
    box = widgets.VBox([prediction_box, reference_box, verdicts])
    box.prediction_box, box.reference_box, box.verdicts = prediction_box, reference_box, verdicts
    return box




def plot_pipeline_verdicts(rows, ax=None):
    """Draw a grid: one row per answer pair, one column per pipeline, each cell that pipeline's verdict.

    Returns the Figure.

    *rows* are dicts from :func:`compare_many_answers`. Each cell is labelled
    with its verdict, so the picture also reads in black and white. Raises
    ``ValueError`` for an empty *rows* or a row missing a pipeline's verdict.
    """
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    rows = list(rows)
    if not rows:
        raise ValueError("rows is empty: nothing to draw")
    for index, row in enumerate(rows):
        missing = [key for key in ("prediction", "reference", *PIPELINES) if key not in row]
        if missing:
            raise ValueError(f"rows[{index}] lacks {missing}; expected rows from compare_many_answers")
    if ax is None:
        prepare_figure_fonts()
        _, ax = plt.subplots(figsize=(FIGSIZE[0], 0.3 * len(rows) + 1.3), dpi=DPI)
    for y, row in enumerate(rows):
        for x, name in enumerate(PIPELINES):
            verdict = row[name]
            ax.add_patch(Rectangle((x, y), 1, 1, facecolor=VERDICT_COLOURS[verdict], edgecolor="white"))
            ax.text(x + 0.5, y + 0.5, str(verdict), ha="center", va="center", fontsize=9)
    ax.set_xlim(0, len(PIPELINES))
    ax.set_ylim(len(rows), 0)
    ax.set_xticks([x + 0.5 for x in range(len(PIPELINES))], PIPELINES)
    ax.xaxis.tick_top()
    ax.set_yticks(
        [y + 0.5 for y in range(len(rows))],
        [f"{row['prediction']!r} vs {row['reference']!r}" for row in rows],
    )
    ax.set_title(figure_text(N_("Verdict of each scorer on each answer pair")), fontsize=10, pad=28)
    ax.tick_params(length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)
    ax.figure.tight_layout()
    return ax.figure
