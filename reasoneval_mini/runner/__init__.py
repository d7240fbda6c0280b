"""The one runner of untrusted code: it starts, confines, talks to and reaps every run.

Every run of code nobody vouches for (a model's program for the executor, a
student's notebooks for the grader) is a *session*: "run these sources in
one namespace, then answer these calls, each with its own deadline", in a
process of its own. Its parts, from the caller down to the child:

* ``session``: the caller's side (:class:`~reasoneval_mini.runner.session.Runner`,
  :class:`~reasoneval_mini.runner.session.Session`, ``Cancel``, ``Profile``,
  the pool of warm runners);
* ``server``: a warm process per runner that forks each session's child and
  holds nothing of any session; it is the subreaper that kills all a session
  started, and dies with its caller;
* ``child``: the untrusted side: limits, cap, sandbox, then the sources, the
  calls and the report, every reporting function bound before untrusted code runs;
* ``start``: the one way an interpreter starts (:func:`start_child`): its
  command line, its environment, its own session, the descriptors it inherits;
* ``environment``: :data:`MINIMAL_ENV` and :func:`child_environment`, the
  child's whole ``os.environ`` (nothing of the caller's);
* ``workdir``: the session's working folder, made and removed
  (:func:`make_workdir`, :func:`remove_tree`), and capped in size where the
  kernel lets a process mount (:func:`cap_workdir`);
* ``limits``: its resource limits (:func:`apply_limits`);
* ``confinement``: the operating system's sandbox around it, planned in the
  caller with a warning once per session about what is missing
  (:func:`plan_sandbox`; :func:`isolation_to_fields` carries the plan to
  the child), applied in the child before any untrusted code, after its
  limits (:func:`limit_and_confine`, which fails closed). A server prepares
  once (:func:`prepare_confinement`, :func:`harden_forking_parent`) and
  builds its children's ruleset once, for the one folder they all work in
  (:func:`build_child_ruleset`);
* ``deadlines``: how long the caller waits for a child, and what for;
* ``reaping``: dying with one's parent, and killing everything below a
  process (Linux ``/proc``);
* ``exceptions`` and ``plain_values``: what crosses the boundary, as plain
  bounded data: an exception's fields, a returned value;
* ``output_buffer``: the head and tail of a stream; ``warm``: the pool of
  warm processes.

Standard library, :mod:`reasoneval_mini.sandbox` and :mod:`reasoneval_mini.support`
only: a child imports it before anything untrusted runs.

The names below are loaded on first use (as the package's own are): a
runner server imports this package, and every library a process has
loaded is mapped again at each of its forks, so the server holds only what
its sessions use (``start`` alone loads ``subprocess``).
"""

from reasoneval_mini.support.exports import lazy_exports

#: Public name -> the module of this package that defines it.
_PUBLIC = {
    **dict.fromkeys(["ConfinementFailed", "build_child_ruleset", "confine_child",
                     "harden_forking_parent", "isolation_from_fields", "isolation_to_fields",
                     "limit_and_confine", "plan_sandbox", "prepare_confinement"], "confinement"),
    **dict.fromkeys(["MINIMAL_ENV", "child_environment"], "environment"),
    **dict.fromkeys(["describe_exception", "rebuild_exception"], "exceptions"),
    "apply_limits": "limits",
    "start_child": "start",
    **dict.fromkeys(["cap_workdir", "make_workdir", "remove_tree", "working_directory_base"],
                    "workdir"),
}

__all__ = sorted(_PUBLIC)


__getattr__, __dir__ = lazy_exports(__name__, _PUBLIC)
