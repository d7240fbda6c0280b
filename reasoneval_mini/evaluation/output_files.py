"""Where an evaluation writes: beside the input file, or in a chosen folder; reports written whole."""

import json
from pathlib import Path

from reasoneval_mini.support.files import write_atomically


def output_paths(input_path, out_dir=None, shard=None):
    """``results``, ``markdown`` and ``json`` paths for *input_path*, beside it or in *out_dir*.

    >>> sorted(p.name for p in output_paths("runs/model_a.jsonl").values())
    ['model_a.report.json', 'model_a.report.md', 'model_a.results.jsonl']

    A *shard* (:class:`~reasoneval_mini.evaluation.shards.Shard`) has a
    results file of its own, so that N shards can share one folder:

    >>> from reasoneval_mini.evaluation.shards import Shard
    >>> output_paths("runs/model_a.jsonl", shard=Shard(2, 3))["results"].name
    'model_a.shard-2-of-3.results.jsonl'
    """
    input_path = Path(input_path)
    stem = input_path.name
    for suffix in (".gz", ".jsonl", ".json"):
        stem = stem[: -len(suffix)] if stem.endswith(suffix) else stem
    folder = Path(out_dir) if out_dir is not None else input_path.parent
    if shard is not None:
        stem = f"{stem}.shard-{shard.index}-of-{shard.count}"
    return {"results": folder / f"{stem}.results.jsonl", "markdown": folder / f"{stem}.report.md",
            "json": folder / f"{stem}.report.json"}


def write_reports(report, paths, render):
    """Write *report* as JSON and, through *render*, as Markdown (each file whole or not at all).

    A model's text may hold a lone surrogate (``"\\ud800"`` in JSON is valid),
    which UTF-8 cannot encode: it is written as the escape ``\\ud800``.
    """
    write_atomically(paths["json"], encodable(json.dumps(report, indent=1, ensure_ascii=False))
                     + "\n")
    write_atomically(paths["markdown"], encodable(render(report)))


def encodable(text):
    """*text* with every character UTF-8 cannot encode (lone surrogates) as a ``\\u`` escape.

    >>> encodable("ok \\ud800")
    'ok \\\\ud800'
    """
    return text.encode("utf-8", "backslashreplace").decode("utf-8")
