"""What every runner of untrusted code gives its child, written once.

The executor (a model's program) and the grader (a student's cells) both
start a child process that runs code nobody vouches for. What that child
gets is the same in both, and lives here:

* ``environment``: :data:`MINIMAL_ENV` and :func:`child_environment`, the
  child's whole ``os.environ`` (nothing of the caller's);
* ``workdir``: the child's own working folder, made and removed
  (:func:`make_workdir`, :func:`remove_tree`), and capped in size where a
  child can afford it (:func:`cap_workdir`);
* ``start``: the one way a child interpreter starts (:func:`start_child`):
  its command line, its environment, its own session;
* ``limits``: its resource limits (:func:`apply_limits`);
* ``deadlines``: how long the trusted side waits past a child's own limit
  (the grace) and how often it looks at a cancel meanwhile;
* ``exceptions``: what the untrusted code raised, described in the child as
  plain bounded fields (:func:`describe_exception`) and rebuilt as a
  harmless stand-in on the trusted side (:func:`rebuild_exception`);
* ``reaping``: on Linux, the trusted parent of the untrusted process (the
  executor's fork server, the grader's keeper) is a child subreaper and
  kills everything the run started, what left its process group included
  (:mod:`reasoneval_mini.runner.reaping`);
* ``confinement``: the operating system's sandbox around it, planned in the
  caller with a warning once per session about what is missing
  (:func:`plan_sandbox`; :func:`isolation_to_fields` carries the plan to
  the child), applied in the child before any untrusted code, after its
  limits (:func:`limit_and_confine`, which fails closed). A parent that forks many
  children prepares once (:func:`prepare_confinement`,
  :func:`harden_forking_parent`) and builds each child's ruleset before
  forking it (:func:`build_child_ruleset`), so that a child pays one
  system call.

Standard library, :mod:`reasoneval_mini.sandbox` and :mod:`reasoneval_mini.support` only: a fork server and
a bare interpreter started by :func:`start_child` import it before anything untrusted runs.
"""

from reasoneval_mini.runner.confinement import (
    ConfinementFailed,
    build_child_ruleset,
    confine_child,
    harden_forking_parent,
    isolation_from_fields,
    isolation_to_fields,
    limit_and_confine,
    plan_sandbox,
    prepare_confinement,
)
from reasoneval_mini.runner.environment import MINIMAL_ENV, child_environment
from reasoneval_mini.runner.exceptions import describe_exception, rebuild_exception
from reasoneval_mini.runner.limits import apply_limits
from reasoneval_mini.runner.start import start_child
from reasoneval_mini.runner.workdir import (
    cap_workdir, make_workdir, remove_tree, working_directory_base)

__all__ = ["ConfinementFailed", "MINIMAL_ENV", "apply_limits", "build_child_ruleset", "cap_workdir",
           "child_environment", "confine_child", "describe_exception", "harden_forking_parent",
           "isolation_from_fields", "isolation_to_fields", "limit_and_confine", "make_workdir",
           "plan_sandbox", "prepare_confinement", "rebuild_exception", "remove_tree", "start_child",
           "working_directory_base"]
