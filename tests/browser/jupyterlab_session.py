"""Start a throwaway JupyterLab server and drive it from Playwright.

The helpers here know nothing about the course package: they start
``python -m jupyter lab`` on 127.0.0.1 with a fresh token, in a temporary
folder with its own HOME and Jupyter/IPython/matplotlib settings (so no
user setting leaks in and nothing is written in the checkout), and talk to
the page through ``window.jupyterapp`` (JupyterLab's documented
``--LabApp.expose_app_in_browser`` switch), which runs the same commands as
the menus and the command palette.

Playwright is imported only inside functions: pytest imports this module
for doctests even where Playwright is not installed.
"""

import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

#: Where Debian puts Chromium when `which` does not find it.
DEBIAN_CHROMIUM = "/usr/bin/chromium"

#: Seconds the server may take to answer /api/status on a busy 2-core machine.
SERVER_START_TIMEOUT = 90

#: JupyterLab user settings written into the temporary settings folder:
#: no news or update toasts over the notebook, and no network requests.
LAB_SETTINGS = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false",
        "checkForUpdates": False,
    },
}


def find_chromium():
    """The path of a Chromium executable, or None."""
    for candidate in (shutil.which("chromium"), shutil.which("chromium-browser"), DEBIAN_CHROMIUM):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def isolated_environment(home):
    """os.environ with HOME and every Jupyter, IPython and matplotlib folder under *home*."""
    folders = {
        "HOME": home,
        "JUPYTER_CONFIG_DIR": home / "jupyter-config",
        "JUPYTER_DATA_DIR": home / "jupyter-data",
        "JUPYTER_RUNTIME_DIR": home / "jupyter-runtime",
        "JUPYTERLAB_SETTINGS_DIR": home / "lab-settings",
        "JUPYTERLAB_WORKSPACES_DIR": home / "lab-workspaces",
        "IPYTHONDIR": home / "ipython",
        "MPLCONFIGDIR": home / "matplotlib",
        "XDG_CONFIG_HOME": home / "xdg-config",
        "XDG_CACHE_HOME": home / "xdg-cache",
    }
    for folder in folders.values():
        folder.mkdir(parents=True, exist_ok=True)
    environment = {key: value for key, value in os.environ.items()
                   if not key.startswith(("JUPYTER", "IPYTHON", "MPL"))}
    environment.update({key: str(value) for key, value in folders.items()})
    for name, settings in LAB_SETTINGS.items():
        path = folders["JUPYTERLAB_SETTINGS_DIR"] / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(settings))
    return environment


class LabServer:
    """A running JupyterLab: ``url`` (with the token), ``token``, ``root``, ``log_path``."""

    def __init__(self, process, port, token, root, log_path):
        self.process, self.port, self.token = process, port, token
        self.root, self.log_path = root, log_path
        self.base = f"http://127.0.0.1:{port}"

    def url(self, path):
        """The browser address that opens *path* (relative to the root) in a fresh workspace."""
        return f"{self.base}/lab/tree/{path}?reset&token={self.token}"

    def log_tail(self, characters=3000):
        """The end of the server's log, for failure messages."""
        try:
            return self.log_path.read_text(errors="replace")[-characters:]
        except OSError as error:
            return f"(no server log: {error})"


@contextlib.contextmanager
def running_lab(root, home, *, python_path=(), timeout=SERVER_START_TIMEOUT):
    """Run JupyterLab serving *root* with HOME in *home*; stop it (and its kernels) on exit.

    *python_path* folders are put first on PYTHONPATH, so the kernels import
    the checkout under test rather than whatever is installed.
    """
    token = secrets.token_hex(24)
    port = free_port()
    environment = isolated_environment(home)
    environment["PYTHONPATH"] = os.pathsep.join(
        [str(path) for path in python_path] + [p for p in [os.environ.get("PYTHONPATH")] if p])
    command = [
        sys.executable, "-m", "jupyter", "lab", "--no-browser",
        f"--ServerApp.token={token}", "--ServerApp.ip=127.0.0.1", f"--port={port}",
        "--ServerApp.port_retries=0", f"--ServerApp.root_dir={root}",
        # window.jupyterapp: run JupyterLab commands as the menus do.
        "--LabApp.expose_app_in_browser=True",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")  # containers run as root; Jupyter refuses without it
    log_path = home / "jupyterlab.log"
    with open(log_path, "wb") as log:
        # A session of its own: stopping the group stops the kernels too.
        process = subprocess.Popen(command, cwd=root, env=environment, stdout=log,
                                   stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                   start_new_session=True)
    server = LabServer(process, port, token, root, log_path)
    try:
        _wait_until_serving(server, timeout)
        yield server
    finally:
        _stop(process)


def _wait_until_serving(server, timeout):
    deadline = time.monotonic() + timeout
    request = urllib.request.Request(f"{server.base}/api/status",
                                     headers={"Authorization": f"token {server.token}"})
    while True:
        if server.process.poll() is not None:
            raise RuntimeError(f"JupyterLab exited with {server.process.returncode} before serving;"
                               f" its log:\n{server.log_tail()}")
        try:
            with urllib.request.urlopen(request, timeout=5) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"JupyterLab did not answer within {timeout} s; its log:\n"
                               f"{server.log_tail()}")
        time.sleep(0.5)


def _stop(process, grace=10):
    """SIGTERM the server's process group, SIGKILL it after *grace* seconds."""
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5)):
        try:
            os.killpg(process.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            process.wait(wait)
        except subprocess.TimeoutExpired:
            continue
        # The server is gone; kernels in its group may linger for a moment.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        return


@contextlib.contextmanager
def chromium_browser(executable_path):
    """A headless Playwright Browser on the given Chromium executable; closed on exit."""
    from playwright.sync_api import sync_playwright

    arguments = ["--disable-gpu", "--disable-dev-shm-usage"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        arguments.append("--no-sandbox")  # Chromium's sandbox refuses to run as root
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable_path, headless=True,
                                             args=arguments)
        try:
            yield browser
        finally:
            browser.close()


def copy_course(repository, destination, folders=("notebooks", "exercises")):
    """Copy the course *folders* of *repository* into *destination* (so runs write nothing there)."""
    for folder in folders:
        shutil.copytree(Path(repository) / folder, Path(destination) / folder,
                        ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
    return Path(destination)
