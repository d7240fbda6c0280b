"""The lessons' figures in the notebook's language: Chinese labels where a Chinese font is
installed, English ones where none is, and the same data either way."""

import io
import re
import warnings

import pytest

import reasoneval_mini.lessons.figure_text as figure_text_module
from reasoneval_mini.lessons.evaluation_report import plot_execution_states
from reasoneval_mini.lessons.figure_text import SCRIPT_FONTS, figure_text, script_font
from reasoneval_mini.lessons.pass_at_k_plots import plot_enumeration_cost, plot_pass_at_k_curve
from reasoneval_mini.lessons.uncertainty import plot_interval_widths
from reasoneval_mini.support.i18n import N_, _, language

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

CJK = re.compile(r"[\u4e00-\u9fff]")
RECORDS = [{"sample_id": "1", "task_id": "A", "status": "passed"},
           {"sample_id": "2", "task_id": "A", "status": "timeout"}]


def _figures():
    return {
        "curve": plot_pass_at_k_curve(5, 2, k=2),
        "cost": plot_enumeration_cost([4, 8, 16]),
        "states": plot_execution_states(RECORDS),
        "widths": plot_interval_widths([(10, 0.4), (40, 0.2)]),
    }


def _texts(figure):
    ax = figure.axes[0]
    legend = ax.get_legend()
    return [ax.get_title(), ax.get_xlabel(), ax.get_ylabel(),
            *([text.get_text() for text in legend.get_texts()] if legend else [])]


def _data(figure):
    ax = figure.axes[0]
    return ([line.get_xydata().tolist() for line in ax.get_lines()],
            [patch.get_height() for patch in ax.patches])


@pytest.fixture
def no_script_font(monkeypatch):
    monkeypatch.setattr(figure_text_module, "script_font", lambda name: None)


def test_english_figures_keep_their_english_labels():
    with language("en"):
        figure = plot_pass_at_k_curve(5, 2, k=2)
    assert figure.axes[0].get_title() == "pass@k over k: unbiased vs plug-in (n = 5, c = 2)"


def test_without_a_chinese_font_a_zh_cn_figure_stays_english_with_the_same_data(no_script_font):
    with language("en"):
        english = _figures()
    with language("zh-CN"):
        chinese = _figures()
    for name in english:
        assert _texts(chinese[name]) == _texts(english[name]), name
        assert not any(CJK.search(text) for text in _texts(chinese[name])), name


@pytest.mark.skipif(not script_font("zh-CN"), reason="no Chinese font installed "
                    f"(any of {', '.join(SCRIPT_FONTS['zh-CN'])}): zh-CN figures stay English")
def test_with_a_chinese_font_zh_cn_labels_are_the_catalogues_drawn_without_missing_glyphs():
    with language("en"):
        english = _figures()
    # Every character must have a glyph: matplotlib warns "Glyph ... missing" otherwise,
    # when a figure is laid out (inside the helper) and when it is drawn.
    with language("zh-CN"), warnings.catch_warnings():
        warnings.simplefilter("error")
        chinese = _figures()
        for figure in chinese.values():
            figure.savefig(io.BytesIO(), format="png")
        expected_title = _(N_("pass@k over k: unbiased vs plug-in (n = {n}, c = {correct})")
                           ).format(n=5, correct=2)
    assert chinese["curve"].axes[0].get_title() == expected_title
    assert CJK.search(expected_title)
    for name in english:
        assert _data(chinese[name]) == _data(english[name]), name
        assert any(CJK.search(text) for text in _texts(chinese[name])), name


def test_a_language_without_a_script_entry_needs_no_font():
    assert script_font("en") == ""
    with language("en"):
        assert figure_text(N_("samples")) == "samples"
