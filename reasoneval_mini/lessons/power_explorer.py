"""The power explorer of lesson 04: sliders for problems, samples and the skill gap.

:func:`describe_power` computes everything the widget shows and is
unit-tested; :func:`make_power_explorer` only wires three sliders to it, so
it can be tested headlessly by setting ``.value`` on the sliders and reading
``box.result``.
"""

import html

from reasoneval_mini.lessons.uncertainty import paired_difference_sources, paired_power, problems_needed
from reasoneval_mini.support.arguments import positive_int
from reasoneval_mini.support.i18n import N_, _

#: The sliders' labels.
PROBLEMS_LABEL, N_LABEL, GAP_LABEL = N_("problems"), N_("n samples"), N_("skill gap")


def describe_power(problems, n, skill_gap, *, k=1):
    """Gain, power and problems needed when model A is *skill_gap* more skilled than B.

    Both models sample independently on the lesson's made-up benchmark (B has
    skill 0). Returns a dict with ``problems``, ``n``, ``skill_gap``, ``gain``
    (the expected pass@k difference), ``power`` (:func:`paired_power`),
    ``needed`` (:func:`problems_needed` for 80% power) and ``text``. Raises
    ``ValueError`` for a non-positive *problems* or *n*, or a *skill_gap* that
    is not a positive number.

    >>> print(describe_power(164, 10, 0.4)["text"])
    gain 0.046 in pass@1: with 164 problems and n=10, detected 97% of the time; 80% needs 91 problems
    """
    positive_int(problems, "problems")
    positive_int(n, "n")
    if isinstance(skill_gap, bool) or not isinstance(skill_gap, (int, float)) or skill_gap <= 0:
        raise ValueError(f"skill_gap must be a positive number, got {skill_gap!r}")
    gain = paired_difference_sources(n, k, skill_gap, 0.0)["gain"]
    power = paired_power(problems, n, k, skill_gap, 0.0)
    needed = problems_needed(n, k, skill_gap, 0.0)
    text = (f"gain {gain:.3f} in pass@{k}: with {problems} problems and n={n}, detected "
            f"{power:.0%} of the time; 80% needs {needed} problems")
    return {"problems": problems, "n": n, "skill_gap": skill_gap, "gain": gain,
            "power": power, "needed": needed, "text": text}


def make_power_explorer(problems=164, n=10, skill_gap=0.4):
    """Build the widget: sliders for problems, n and the skill gap, and a summary line.

    Returns an ``ipywidgets.VBox`` with extra attributes ``problems_slider``,
    ``n_slider``, ``gap_slider``, ``summary`` (an ``HTML`` widget),
    ``result`` (the latest :func:`describe_power` dict) and ``updates`` (how
    many times it recomputed). The labels are in the current language when
    the explorer is built. Needs ``ipywidgets``.
    """
    try:
        import ipywidgets as widgets
    except ImportError as error:  # the core course runs without widgets
        raise ImportError('the explorer needs ipywidgets: pip install -e ".[course]"') from error
    describe_power(problems, n, skill_gap)  # refuses bad starting values before any widget
    problems_slider = widgets.IntSlider(value=problems, min=10, max=2000,
                                        description=_(PROBLEMS_LABEL))
    n_slider = widgets.IntSlider(value=n, min=1, max=50, description=_(N_LABEL))
    gap_slider = widgets.FloatSlider(value=skill_gap, min=0.05, max=2.0, step=0.05,
                                     description=_(GAP_LABEL))
    summary = widgets.HTML()
    box = widgets.VBox([problems_slider, n_slider, gap_slider, summary])
    box.updates = 0

    def update(_change=None):
        box.updates += 1
        box.result = describe_power(problems_slider.value, n_slider.value, gap_slider.value)
        summary.value = f"<code>{html.escape(box.result['text'])}</code>"

    for slider in (problems_slider, n_slider, gap_slider):
        slider.observe(update, names="value")
    box.problems_slider, box.n_slider, box.gap_slider = problems_slider, n_slider, gap_slider
    box.summary = summary
    update()
    return box
