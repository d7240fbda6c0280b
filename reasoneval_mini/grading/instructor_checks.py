"""Load the instructor's side of grading: the exercise registry and hidden tests.

Only the grader calls these, before any student code runs: the registry and
the hidden checks stay in its own process (the grading children never get a
path to either), and the checks run there, on the values the children send
back.
"""

import importlib
import importlib.util
import sys

DEFAULT_REGISTRY = "reasoneval_mini.exercises.registry"


class HiddenTestsError(ValueError):
    """The hidden tests file is unusable; the message names the file and the problem."""


def load_registry(spec=DEFAULT_REGISTRY):
    """Import the exercise registry: a dotted module name or a path to a ``.py`` file."""
    if str(spec).endswith(".py"):
        module_spec = importlib.util.spec_from_file_location("grading_registry", spec)
        module = importlib.util.module_from_spec(module_spec)
        sys.modules["grading_registry"] = module
        module_spec.loader.exec_module(module)
        return module
    return importlib.import_module(spec)


def load_hidden_checks(path, exercises):
    """Return ``{exercise_id: tuple_of_checks}`` from the file's ``HIDDEN_CHECKS``.

    Raises :class:`HiddenTestsError` naming *path* if it cannot be run, lacks a
    ``HIDDEN_CHECKS`` dict, names an unknown exercise or gives a non-list value.
    """
    import runpy

    try:
        values = runpy.run_path(str(path))
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # instructor code, but report it (SystemExit too)
        raise HiddenTestsError(
            f"hidden tests file {path} cannot be loaded: {type(error).__name__}: {error}"
        ) from None
    hidden = values.get("HIDDEN_CHECKS")
    if not isinstance(hidden, dict):
        raise HiddenTestsError(
            f"hidden tests file {path} must define HIDDEN_CHECKS = {{exercise_id: [check, ...]}}, "
            f"got {type(hidden).__name__}")
    for exercise_id, checks in hidden.items():
        if exercise_id not in exercises:
            raise HiddenTestsError(
                f"hidden tests file {path} names unknown exercise {exercise_id!r}; "
                f"known: {', '.join(exercises)}")
        if not isinstance(checks, (list, tuple)) or not all(map(callable, checks)):
            raise HiddenTestsError(
                f"hidden tests file {path}: HIDDEN_CHECKS[{exercise_id!r}] must be a list "
                f"of checks (callables), got {checks!r:.80}")
    return {exercise_id: tuple(checks) for exercise_id, checks in hidden.items()}
