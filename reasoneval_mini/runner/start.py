"""Start a child interpreter that runs one function of the package: one command line, one ``Popen``.

Every process the course starts to run untrusted code (the executor's fork
server, its fresh interpreter where there is no ``fork``, the grader's child
per student) is started here, by :func:`start_child`:

* the command line (:func:`boot_command`) is ``python -s -X utf8 -c BOOT``:
  no user site folder; UTF-8 whatever the locale; *BOOT* puts the folder
  that holds the package first on ``sys.path`` (an instructor may run the
  course from a checkout that is not installed, and the child's
  environment has no ``PYTHONPATH``), imports the named module, takes the
  folder (and the empty entry for the working folder) off ``sys.path`` again
  and calls the named function with the given arguments;
* the environment is :func:`~reasoneval_mini.runner.environment.child_environment`
  and nothing else: no secret of the caller's, no ``PYTHON*`` setting that
  was not asked for;
* the child leads a session of its own (a process group, on Windows), so
  that a Ctrl-C in the caller's terminal never reaches it and its whole
  group can be killed; descriptors are closed but those in *pass_fds*.

>>> boot_command("reasoneval_mini.runner.child", "main", (41,))[1:5]
['-s', '-X', 'utf8', '-c']

Surprising: ``-I`` (isolated mode) is not used, although it would ignore
``PYTHONPATH`` too: it ignores every ``PYTHON*`` variable, and the grader's
child needs ``PYTHONHASHSEED``. The environment is the caller's choice, whole.

>>> boot_command("reasoneval_mini.runner.child", "main", (object(),))
Traceback (most recent call last):
...
TypeError: a boot argument must be None, a bool, int, float or str, got <object object at ...>
"""

import os
import re
import subprocess
import sys

from reasoneval_mini.runner.environment import child_environment

#: The folder that holds the package (``reasoneval_mini``'s parent).
PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
#: The source a child runs (``-c``). Under ``-c`` (and without ``-P``, which
#: the minimal environment never asks for) ``sys.path[0]`` is ``""``, the
#: working folder: replaced by the package's folder while the module is
#: imported, then dropped, so that nothing is imported from either afterwards
#: (the package itself keeps its own ``__path__``).
BOOT = ("import sys; sys.path[0] = {parent!r}; import {module} as _entry; "
        "del sys.path[0]; _entry.{function}(*{args!r})")
_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*\Z")
#: What may be an argument: its ``repr`` is a literal that means the same value.
_LITERALS = (type(None), bool, int, float, str)


def boot_command(module, function, args=()):
    """The command line that runs ``module.function(*args)`` in a new interpreter.

    *module* is a dotted module name below :data:`PACKAGE_PARENT` (or in the
    standard library); *function* a name in it; *args* plain values (None,
    bool, int, float, str), written into the source as literals. Raises
    ``ValueError`` for a name that is not one, ``TypeError`` for any other
    argument.
    """
    if not isinstance(module, str) or not _DOTTED.match(module):
        raise ValueError(f"a boot module must be a dotted name, got {module!r:.80}")
    if not isinstance(function, str) or not function.isidentifier():
        raise ValueError(f"a boot function must be a name, got {function!r:.80}")
    args = tuple(args)
    for value in args:
        if type(value) not in _LITERALS:
            raise TypeError(f"a boot argument must be None, a bool, int, float or str, "
                            f"got {value!r:.80}")
    source = BOOT.format(parent=PACKAGE_PARENT, module=module, function=function, args=args)
    return [sys.executable, "-s", "-X", "utf8", "-c", source]


def start_child(module, function, args=(), *, workdir, cwd=None, extra_env=None,
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                pass_fds=()):
    """Start ``module.function(*args)`` (see :func:`boot_command`) in a new process; return its ``Popen``.

    Its environment is ``child_environment(workdir, **extra_env)`` (``HOME``
    and ``TMPDIR`` are *workdir*, which need not exist yet); *cwd* its
    working folder (None: the caller's). *stdin*, *stdout*, *stderr* are as
    :class:`subprocess.Popen` takes them; the pipes are unbuffered (their
    file objects are raw: ``read(n)`` returns what one read gave). Only
    *pass_fds* are inherited besides 0-2 (on Windows, as the handles
    :func:`descriptor_token` gave: hand the child the tokens, and it takes
    them back with :func:`inherited_descriptor`). The child leads its own
    session on POSIX, its own process group on Windows.
    """
    if os.name == "nt":  # pragma: no cover - Windows only
        group = {"creationflags": subprocess.CREATE_NEW_PROCESS_GROUP}
        if pass_fds:
            info = subprocess.STARTUPINFO()
            info.lpAttributeList = {"handle_list": [descriptor_token(fd) for fd in pass_fds]}
            group["startupinfo"] = info
        pass_fds = ()
    else:
        group = {"start_new_session": True}
    return subprocess.Popen(
        boot_command(module, function, args), stdin=stdin, stdout=stdout, stderr=stderr,
        cwd=cwd, env=child_environment(workdir, **(extra_env or {})), close_fds=True,
        pass_fds=tuple(pass_fds), bufsize=0, **group)


def descriptor_token(fd):
    """What names the descriptor *fd* to a child :func:`start_child` passes it to: the number itself;
    on Windows its handle, made inheritable."""
    if os.name != "nt":
        return fd
    import msvcrt  # pragma: no cover - Windows only

    handle = msvcrt.get_osfhandle(fd)
    os.set_handle_inheritable(handle, True)
    return handle


def inherited_descriptor(token):
    """In the child: the descriptor a :func:`descriptor_token` names."""
    if os.name != "nt":
        return token
    import msvcrt  # pragma: no cover - Windows only

    return msvcrt.open_osfhandle(token, 0)
