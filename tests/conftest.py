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
