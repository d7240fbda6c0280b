"""``evaluate code --dask ADDRESS``: reach a Dask cluster, or say how to get one.

Dask's ``distributed`` is an optional extra (``pip install
"reasoneval-course[dask]"``). :func:`dask_client` connects to a running
scheduler (``tcp://host:8786``, or the address a ``LocalCluster`` prints);
:func:`~reasoneval_mini.evaluation.code_run.run_code_samples` then sends it
chunks of samples. Every worker runs the course's executor in its own
process, with its own sandbox: the level each one reached is stamped on
every record it returns, and the report lists every level seen.

>>> dask_client("")
Traceback (most recent call last):
...
ValueError: --dask needs a scheduler address such as tcp://127.0.0.1:8786, got ''
"""

__all__ = ["CONNECT_TIMEOUT_S", "INSTALL_HINT", "dask_client", "describe_cluster"]

#: Seconds to wait for the scheduler before saying it cannot be reached.
CONNECT_TIMEOUT_S = 10
INSTALL_HINT = ("--dask needs Dask's distributed, an optional extra: "
                "python -m pip install \"reasoneval-course[dask]\" (or: python -m pip install "
                "distributed)")


def dask_client(address, *, timeout=CONNECT_TIMEOUT_S):
    """A ``distributed.Client`` for *address* (a text), or *address* itself if it is a client.

    Raises ``ValueError`` for an empty address or a scheduler that cannot be
    reached within *timeout* seconds (named), ``ImportError`` with the install command without the extra.
    """
    if not isinstance(address, str):
        return address  # a Client made by the caller (tests, a notebook)
    if not address.strip():
        raise ValueError(f"--dask needs a scheduler address such as tcp://127.0.0.1:8786, "
                         f"got {address!r}")
    try:
        from distributed import Client
    except ImportError:
        raise ImportError(INSTALL_HINT) from None
    try:
        return Client(address, timeout=timeout)
    except (OSError, TimeoutError) as error:
        raise ValueError(f"--dask: cannot reach a Dask scheduler at {address!r} "
                         f"({type(error).__name__}: {error})") from None


def describe_cluster(client):
    """``"dask tcp://...: 2 workers, 4 threads"``: the budget's line for a cluster run."""
    info = client.scheduler_info()
    workers = info.get("workers", {})
    threads = sum(worker.get("nthreads", 0) for worker in workers.values())
    return f"dask {info.get('address', '?')}: {len(workers)} workers, {threads} threads"
