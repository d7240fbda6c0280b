"""The untrusted child's whole environment: nothing of the caller's but what Python needs.

An instructor's shell holds API keys and tokens; a child inherits none of
them. Its ``HOME`` and ``TMPDIR`` point at its own working folder, the one
place it may write.

>>> sorted(child_environment("/tmp/run-1"))
['HOME', 'LANG', 'LC_ALL', 'PATH', 'TMPDIR']
>>> child_environment("/tmp/run-1", PYTHONHASHSEED="0")["PYTHONHASHSEED"]
'0'

Surprising: on Windows ``SYSTEMROOT`` is passed on too, because Python cannot
start without it (no secret lives there).
"""

import os

#: What a child sees in ``os.environ``, besides ``HOME``/``TMPDIR`` (its working folder).
MINIMAL_ENV = {"PATH": os.defpath, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}


def child_environment(workdir, **extra):
    """:data:`MINIMAL_ENV` with ``HOME`` and ``TMPDIR`` set to *workdir*, plus *extra* (str values)."""
    env = dict(MINIMAL_ENV, HOME=str(workdir), TMPDIR=str(workdir), **extra)
    if os.name == "nt":  # pragma: no cover - Windows only
        env.update(TEMP=str(workdir), TMP=str(workdir))
        if "SYSTEMROOT" in os.environ:
            env["SYSTEMROOT"] = os.environ["SYSTEMROOT"]
    return env
