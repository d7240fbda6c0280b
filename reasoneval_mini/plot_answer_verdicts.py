"""A picture of where answer scorers disagree (lesson 01)."""

from .compare_answer_pipelines import PIPELINES

# Colour-blind-safe choices: blue for equal, orange for different, grey for unparsed.
VERDICT_COLOURS = {True: "#4c72b0", False: "#dd8452", None: "#bbbbbb"}


def plot_pipeline_verdicts(rows, ax=None):
    """Draw one coloured cell per (answer pair, pipeline) and return the Figure.

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
        _, ax = plt.subplots(figsize=(6, 0.32 * len(rows) + 1.0), dpi=80)
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
    ax.tick_params(length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)
    ax.figure.tight_layout()
    return ax.figure
