"""The `browser` marker: deselect the JupyterLab browser tests with -m "not browser"."""


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "browser: drives a real JupyterLab in headless Chromium through Playwright "
        "(skipped without them, failing instead when CI=true); deselect with -m \"not browser\"",
    )
