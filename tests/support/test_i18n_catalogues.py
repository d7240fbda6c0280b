"""A language's catalogue is loaded once and then read as it is; a bad name is still refused."""

import threading

import pytest

from reasoneval_mini.support.i18n import LANGUAGES, _, catalogue, language


def test_each_language_has_one_catalogue_object_whoever_asks_first():
    seen = {name: [] for name in LANGUAGES}

    def ask():
        for name in LANGUAGES:
            seen[name].append(catalogue(name))
    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for name in LANGUAGES:
        assert len({id(found) for found in seen[name]}) == 1, name


@pytest.mark.parametrize("name", ["fr", "", "EN", None, 3, ["en"]])
def test_a_name_that_is_no_language_raises_value_error_naming_it(name):
    catalogue(LANGUAGES[0])  # loaded: the read without the lock is on the path
    with pytest.raises(ValueError, match="unknown language"):
        catalogue(name)


def test_a_message_reads_in_the_language_of_its_thread():
    assert _("different value") == "different value"
    other = [name for name in LANGUAGES if name != "en"]
    if other:
        with language(other[0]):
            assert _("different value") == catalogue(other[0]).gettext("different value")
