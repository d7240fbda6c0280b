"""The pass@k explorer of lesson 02: sliders for n, c and k on a pure function.

:func:`describe_pass_at_k` and :func:`pass_at_k_curve` compute everything
the widget shows and are unit-tested; :func:`make_pass_at_k_explorer` only
wires three sliders to them, so it can be tested headlessly by setting
``.value`` on the sliders and reading ``box.result``.
"""

import html

from reasoneval_mini.estimators import check_counts, pass_at_k, plugin_pass_at_k
from reasoneval_mini.support.arguments import ArgumentTypeError
from reasoneval_mini.support.i18n import N_, _

#: The sliders' labels (``k`` is the formula's symbol, the same in every language).
N_LABEL, C_LABEL = N_("n samples"), N_("c correct")


def describe_pass_at_k(n, correct, k):
    """Return the estimate, the plug-in and their gap for one (n, c, k).

    Returns a dict with ``n``, ``c``, ``k``, ``estimate`` (:func:`pass_at_k`),
    ``plugin`` (:func:`plugin_pass_at_k`), ``gap = estimate - plugin`` and
    ``text``, a one-line summary. Raises ``ValueError`` like :func:`pass_at_k`.

    >>> print(describe_pass_at_k(5, 2, 2)["text"])
    n=5, c=2, k=2: pass@k = 0.7000, plug-in = 0.6400 (0.0600 lower)
    """
    check_counts(n, correct, k)
    estimate = pass_at_k(n, correct, k)
    plugin = plugin_pass_at_k(n, correct, k)
    text = (f"n={n}, c={correct}, k={k}: pass@k = {estimate:.4f}, "
            f"plug-in = {plugin:.4f} ({max(estimate - plugin, 0.0):.4f} lower)")
    # The plug-in never exceeds the estimate (each factor (n-c-i)/(n-i) is at
    # most (n-c)/n); max() only hides a -0.0000 from float rounding.
    return {"n": n, "c": correct, "k": k, "estimate": estimate,
            "plugin": plugin, "gap": estimate - plugin, "text": text}


def pass_at_k_curve(n, correct):
    """Return ``[(k, estimate, plugin), ...]`` for every k in 1..n.

    Surprising: at k = n every sample is drawn, so one pass makes the
    estimate certain, while the plug-in (drawing with replacement) is not.

    >>> pass_at_k_curve(3, 1)[-1]
    (3, 1.0, 0.7037037037037036)
    """
    check_counts(n, correct, 1)
    return [(k, pass_at_k(n, correct, k), plugin_pass_at_k(n, correct, k))
            for k in range(1, n + 1)]


def make_pass_at_k_explorer(n=5, correct=2, k=2, *, max_n=50, draw=True):
    """Build the widget: sliders for n, c, k, a summary line and the curve.

    Returns an ``ipywidgets.VBox`` with extra attributes ``n_slider``,
    ``c_slider``, ``k_slider``, ``summary`` (an ``HTML`` widget), ``figure``
    (an ``Image`` widget holding the curve as PNG), ``result`` (the latest
    :func:`describe_pass_at_k` dict, or ``None`` while the sliders ask for
    something invalid), ``error`` (that ``ValueError``'s message, or ``None``)
    and ``updates`` (how many times the explorer recomputed).

    Its labels and its refusal are in the language current when it is built
    (:mod:`~reasoneval_mini.support.i18n`). Every slider ranges up to
    *max_n*, and nothing is clamped: when c or k exceeds n the explorer shows
    the library's refusal (for ``k > n``: no subset of k to draw, generate
    more samples) instead of quietly computing something else, and removes
    the figure (a curve for other sliders would be read as the answer to
    these). Each slider change recomputes exactly once, and the figure is
    sent as image data, so a change writes nothing outside the widget
    (JupyterLab's log stays empty). With ``draw=False`` no figure is made
    (faster in tests). Needs ``ipywidgets``.
    """
    try:
        import ipywidgets as widgets
    except ImportError as error:  # the core course runs without widgets
        raise ImportError('the explorer needs ipywidgets: pip install -e ".[course]"') from error
    check_counts(n, correct, k)
    if type(max_n) is not int:
        raise ArgumentTypeError(f"max_n must be an int >= n={n}, got {max_n!r} ({type(max_n).__name__})")
    if max_n < n:
        raise ValueError(f"max_n must be an int >= n={n}, got {max_n!r}")
    n_slider = widgets.IntSlider(value=n, min=1, max=max_n, description=_(N_LABEL))
    c_slider = widgets.IntSlider(value=correct, min=0, max=max_n, description=_(C_LABEL))
    k_slider = widgets.IntSlider(value=k, min=1, max=max_n, description="k")
    summary = widgets.HTML()
    figure = widgets.Image(format="png")
    box = widgets.VBox([n_slider, c_slider, k_slider, summary, figure])
    box.updates = 0
    # Taken now, like the labels: the explorer speaks the language it was built in.
    refusal = _("refused: {error}")

    def update(_change=None):
        box.updates += 1
        try:
            box.result = describe_pass_at_k(n_slider.value, c_slider.value, k_slider.value)
        except ValueError as error:
            box.result, box.error = None, str(error)
            # The refusal itself is the library's ValueError, English like every error it raises.
            refused = refusal.format(error=box.error)
            summary.value = f"<code>{html.escape(refused)}</code>"
            figure.value, figure.layout.display = b"", "none"
            return
        box.error = None
        summary.value = f"<code>{html.escape(box.result['text'])}</code>"
        if draw:
            figure.value = _curve_png(box.result)
            figure.layout.display = None

    for slider in (n_slider, c_slider, k_slider):
        slider.observe(update, names="value")
    box.n_slider, box.c_slider, box.k_slider = n_slider, c_slider, k_slider
    box.summary, box.figure = summary, figure
    update()
    return box


def _curve_png(result):
    """The curve of :func:`plot_pass_at_k_curve` as PNG bytes, drawn off pyplot."""
    import io

    from matplotlib.figure import Figure

    from reasoneval_mini.lessons.figure_text import prepare_figure_fonts
    from reasoneval_mini.lessons.pass_at_k_plots import DPI, FIGSIZE, plot_pass_at_k_curve

    # A bare Figure is never registered with pyplot, so nothing is shown or
    # queued for display behind the widget's back.
    prepare_figure_fonts()
    figure = Figure(figsize=FIGSIZE, dpi=DPI)
    plot_pass_at_k_curve(result["n"], result["c"], result["k"], ax=figure.subplots())
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()
