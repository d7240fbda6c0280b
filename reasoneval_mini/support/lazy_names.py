"""A package's public names, each imported from its module on first use (PEP 562).

A package whose ``__init__`` imported every module would make each import of
it pay for all of them: ``import reasoneval_mini`` would load the executor, and
a fresh interpreter that runs one program would load the executor's parallel
runner. :func:`lazy_names` gives the package's ``__getattr__`` and ``__dir__``
from a table of name -> module (relative to the package).

>>> getattr_, _ = lazy_names("json", {"JSONDecoder": "decoder"})
>>> getattr_("JSONDecoder").__module__
'json.decoder'

Surprising: a module of the package is not one of its names unless the table says so.

>>> getattr_("scanner")
Traceback (most recent call last):
...
AttributeError: module 'json' has no attribute 'scanner'
"""

import importlib

__all__ = ["lazy_names"]


def lazy_names(package, table):
    """``(__getattr__, __dir__)`` for the package *package* exporting *table*'s names lazily.

    *table* maps each public name to the module under *package* that defines
    it. A loaded name is stored in the package, so later look-ups are plain
    attribute reads. A name not in *table* raises ``AttributeError`` as a
    module does.
    """
    if not (isinstance(package, str) and package):
        raise ValueError(f"package must be a package's name, got {package!r}")

    def __getattr__(name):
        # Called only for names not yet in the package's namespace.
        if name not in table:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{table[name]}"), name)
        setattr(importlib.import_module(package), name, value)
        return value

    def __dir__():
        return sorted(set(vars(importlib.import_module(package))) | set(table))

    return __getattr__, __dir__
