"""The lesson 03 explorer, driven headlessly: set the dropdowns, press Run, read the record."""

import html

import pytest

from reasoneval_mini import NOT_RUN, PASSED, RUNTIME_ERROR, TIMEOUT
from reasoneval_mini.lessons.synthetic_completions import VARIANTS, build_completion
from reasoneval_mini.lessons.execution_explorer import (
    format_sample_result,
    make_execution_explorer,
    run_chosen_sample,
)
from reasoneval_mini.datasets.humaneval import load_humaneval
from reasoneval_mini.support.i18n import language
from translations import widget_labels, zh

widgets = pytest.importorskip("ipywidgets")


@pytest.fixture(scope="module")
def problems():
    return load_humaneval()[:5]


def test_run_chosen_sample_runs_the_variant_for_real(problems):
    result = run_chosen_sample(problems[2], "infinite_loop", timeout=0.5)
    assert result["completion"] == build_completion(problems[2], "infinite_loop")
    assert result["record"]["status"] == TIMEOUT
    assert result["record"]["task_id"] == "HumanEval/2"


def test_not_generated_is_recorded_not_dropped(problems):
    result = run_chosen_sample(problems[0], "not_generated")
    assert result["completion"] is None and result["record"]["status"] == NOT_RUN


def test_text_shows_completion_status_and_detail_but_no_duration(problems):
    result = run_chosen_sample(problems[1], "syntax_error", timeout=0.5)
    text = format_sample_result(result)
    assert result["completion"].rstrip("\n") in text
    assert f"status: {RUNTIME_ERROR}" in text and "SyntaxError" in text
    assert str(result["record"]["duration_s"]) not in text


def test_widget_runs_only_when_the_button_is_pressed(problems):
    box = make_execution_explorer(problems)
    assert box.result is None
    assert list(box.variant_dropdown.options) == list(VARIANTS)
    box.task_dropdown.value = "HumanEval/3"
    box.variant_dropdown.value = "canonical"
    assert box.result is None
    box.run_button.click()
    assert box.result["task_id"] == "HumanEval/3" and box.result["record"]["status"] == PASSED
    assert "status: passed" in box.view.value


def test_widget_follows_new_choices_on_the_next_press(problems):
    box = make_execution_explorer(problems, task_id="HumanEval/4", variant="early_exit")
    box.run_button.click()
    assert box.result["record"]["status"] == RUNTIME_ERROR
    box.variant_dropdown.value = "not_generated"
    box.run_button.click()
    assert box.result["variant"] == "not_generated" and box.result["record"]["status"] == NOT_RUN
    assert "(no completion was generated)" in box.view.value


def test_widget_labels_and_prompt_are_in_the_language_it_is_built_in(problems):
    english = make_execution_explorer(problems)
    with language("zh-CN"):
        chinese = make_execution_explorer(problems)
    assert widget_labels(english) == ["problem", "variant", "Run sample"]
    assert widget_labels(chinese) == [zh("problem"), zh("variant"), zh("Run sample")]
    assert english.view.value == "<i>Choose a problem and a variant, then press <b>Run sample</b>.</i>"
    prompt = zh("Choose a problem and a variant, then press {button}.").format(
        button=f"<b>{html.escape(zh('Run sample'))}</b>")
    assert chinese.view.value == f"<i>{prompt}</i>"
    assert list(chinese.variant_dropdown.options) == list(VARIANTS)  # ids, never translated


@pytest.mark.parametrize("kwargs, message", [
    ({"task_id": "HumanEval/99"}, "unknown task_id 'HumanEval/99'"),
    ({"variant": "typo"}, "unknown variant 'typo'"),
])
def test_bad_choices_are_refused(problems, kwargs, message):
    with pytest.raises(ValueError, match=message):
        make_execution_explorer(problems, **kwargs)


def test_empty_problem_list_is_refused():
    with pytest.raises(ValueError, match="non-empty list"):
        make_execution_explorer([])
