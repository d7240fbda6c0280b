"""Every translated notebook runs the English program and is in step with the English text.

Which notebooks have a translation is read from the folders; the course map's
completeness is checked by ``test_every_notebook_of_the_course_map_has_an_edition``
once every edition exists.
"""

import copy
import json
from pathlib import Path

import pytest

from reasoneval_mini.editions import (
    edition_path, origin_record, program_differences, stale_cells, translated_languages)

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("notebooks", "solutions", "exercises")


def _load(path):
    return json.loads(path.read_text(encoding="utf-8"))


def translations():
    found = []
    for folder in FOLDERS:
        for english in sorted((ROOT / folder).glob("*.ipynb")):
            for language in translated_languages():
                translated = edition_path(english, language)
                if translated.exists():
                    found.append((english, translated))
    return found


TRANSLATIONS = translations()


def _id(pair):
    return pair[1].relative_to(ROOT).as_posix()


def test_every_translation_has_an_english_source():
    for language in translated_languages():
        for folder in FOLDERS:
            for translated in sorted((ROOT / folder / language).glob("*.ipynb")):
                english = ROOT / folder / translated.name
                assert english.exists(), f"{translated.relative_to(ROOT)} translates nothing: " \
                                         f"no {english.relative_to(ROOT)}"


@pytest.mark.parametrize("pair", TRANSLATIONS, ids=_id)
def test_translation_runs_the_english_program(pair):
    english, translated = pair
    assert program_differences(_load(english), _load(translated)) == [], _id(pair)


@pytest.mark.parametrize("pair", TRANSLATIONS, ids=_id)
def test_translation_is_in_step_with_the_english(pair):
    english, translated = pair
    changes = stale_cells(_load(english), _load(translated))
    assert not changes, (f"{_id(pair)} is behind {english.relative_to(ROOT)}; what changed in "
                         "the English since it was translated:\n" + "\n\n".join(changes))


def test_every_english_notebook_runs_its_own_program():
    # The comparison must accept the identical notebook (magics, f-strings, plots).
    for folder in FOLDERS:
        for english in sorted((ROOT / folder).glob("*.ipynb")):
            notebook = _load(english)
            assert program_differences(notebook, notebook) == [], english.name


def test_a_changed_english_cell_makes_its_translation_stale():
    english = _load(ROOT / "notebooks" / "02_pass_at_k.ipynb")
    translated = copy.deepcopy(english)
    translated.setdefault("metadata", {}).setdefault("reasoneval", {})["translation"] = \
        origin_record(english, "notebooks/02_pass_at_k.ipynb")
    assert stale_cells(english, translated) == []
    index = next(i for i, cell in enumerate(english["cells"]) if cell["cell_type"] == "markdown")
    english["cells"][index]["source"] = "".join(english["cells"][index]["source"]) + "\nA new line."
    changes = stale_cells(english, translated)
    assert len(changes) == 1 and changes[0].startswith("markdown cell 1:")
    assert "+A new line." in changes[0]


def test_a_translation_without_a_record_is_stale():
    english = {"cells": [{"cell_type": "markdown", "source": "Hello"}]}
    assert stale_cells(english, {"cells": [], "metadata": {}})[0].startswith(
        "the translation records no English origin")


@pytest.mark.parametrize("english_code, translated_code, same", [
    ("print('Right.')", "print('正确。')", True),
    ("ax.set_xlabel('k')", "ax.set_xlabel('k 值')", True),
    ("plt.plot(x, y, label='plug-in')", "plt.plot(x, y, label='代入估计')", True),
    ("print(f'{rate:.3f} of runs')", "print(f'{rate:.3f} 的运行')", True),
    ("x = 1  # one", "x = 1  # 一", True),
    ("check('kp1_parse', f)", "check('kp1_解析', f)", False),        # an id is not text
    ("d = {'passed': 3}", "d = {'通过': 3}", False),                   # a key is data
    ("print(round(x, 3))", "print(round(x, 2))", False),             # a number inside print
    ("from reasoneval_mini.feedback import check",
     "from reasoneval_mini.feedback import check, use_language\nuse_language('zh-CN')", True),
    ("use_language('en')", "use_language('zh-CN')", True),
    ("%matplotlib inline\nx = 1", "%matplotlib widget\nx = 1", False),
])
def test_what_counts_as_the_same_program(english_code, translated_code, same):
    def notebook(code):
        return {"cells": [{"cell_type": "code", "source": code}]}
    assert (program_differences(notebook(english_code), notebook(translated_code)) == []) is same


def test_cells_must_correspond_one_to_one():
    english = {"cells": [{"cell_type": "markdown", "source": "a"},
                         {"cell_type": "code", "source": "x = 1"}]}
    merged = {"cells": [{"cell_type": "code", "source": "x = 1"}]}
    assert program_differences(english, merged)[0].startswith("the cells differ in kind or number")
