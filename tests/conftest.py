"""Settings every test shares."""

import pytest


@pytest.fixture(autouse=True, scope="session")
def _instructor_config_in_a_temporary_folder(tmp_path_factory):
    # ``grade`` makes the instructor's grading key on first use, under the user's
    # config folder: a test run must not leave one in the real home folder.
    folder = tmp_path_factory.mktemp("config")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CONFIG_HOME", str(folder))
        yield


@pytest.fixture(autouse=True)
def _course_settings_restored():
    # The kernel-wide settings a notebook's setup cell makes (variant, language) and
    # the answer key that an in-process ``grade --answer-key`` chooses hold for the
    # whole process by design. A test that changes one must not change the next
    # test's feedback: under xdist the next test is whichever the worker draws.
    from reasoneval_mini.exercises import answer_key
    from reasoneval_mini.exercises.variants import current_variant, use_variant
    from reasoneval_mini.support.i18n import current_language, use_language

    variant, spoken, key_path = current_variant(), current_language(), answer_key._CHOSEN[0]
    yield
    if current_variant() != variant:
        use_variant(variant.identity)
    if current_language() != spoken:
        use_language(spoken)
    answer_key.use_answer_key(key_path)
