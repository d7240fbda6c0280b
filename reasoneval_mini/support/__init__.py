"""Small helpers every layer may use, each written once (standard library only).

* ``arguments``: the one policy for invalid arguments (``ValueError`` with the
  value shown) and its common checks (a positive number of seconds, ...);
* ``text``: one-line, bounded, address-free text for messages and reports;
* ``files``: atomic writes;
* ``processes``: killing a process group or tree, naming a signal;
* ``messages``: the one child-process message protocol (framed JSON);
* ``parallel``: the one parallel runner (threads, cancellable);
* ``exports``: a package's public names, loaded on first use.

Nothing here imports the rest of the package.
"""
