"""A package's public names, each loaded from its module on first use (PEP 562).

Importing a package then costs nothing until one of its names is asked for:
the lessons' ``from reasoneval_mini import ...`` does not load the executor,
and a runner server does not load what its children never call.

>>> import sys, types
>>> package = sys.modules["demo_package"] = types.ModuleType("demo_package")
>>> package.__getattr__, package.__dir__ = lazy_exports("demo_package", {"sqrt": "math"}, "")
>>> package.sqrt(16.0), "sqrt" in vars(package)
(4.0, True)

Surprising: a name not listed is an ``AttributeError`` even if the module
behind another name defines it:

>>> package.floor
Traceback (most recent call last):
AttributeError: module 'demo_package' has no attribute 'floor'
>>> del sys.modules["demo_package"]
"""

import importlib
import sys


def lazy_exports(package, public, prefix=None):
    """The ``__getattr__`` and ``__dir__`` for the module *package* exporting *public* lazily.

    *public* maps each public name to the module that defines it, relative to
    *prefix* (default: *package* followed by a dot). The first look-up of a
    name imports its module and stores the value in the package's namespace:
    later look-ups are plain attribute reads. Call it from the package's own
    body (the package must be in ``sys.modules``).
    """
    namespace = vars(sys.modules[package])
    prefix = f"{package}." if prefix is None else prefix

    def __getattr__(name):
        if name not in public:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(prefix + public[name]), name)
        namespace[name] = value
        return value

    def __dir__():
        return sorted(set(namespace) | set(public))

    return __getattr__, __dir__
