"""Playwright fixtures: Debian's Chromium, never a downloaded browser.

Browser tests skip only when ``/usr/bin/chromium`` is absent and ``CI`` is unset; on CI a
missing Chromium is a failure.
"""

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1440, "height": 900}


@pytest.fixture(scope="session", autouse=True)
def _orm_beside_playwright() -> Iterator[None]:
    """Playwright's sync API runs an event loop in this thread, so Django would refuse the
    tests' own ORM calls (fixtures included). Allowed from the first browser test on; the
    browser tests run last (tests/conftest.py), so every other test keeps the protection."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        yield


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """A headless Debian Chromium driven by Playwright."""
    if not CHROMIUM.exists():
        if os.environ.get("CI"):
            pytest.fail("CI needs Debian's chromium at /usr/bin/chromium (.ci/run installs it)")
        pytest.skip("Debian's chromium is not installed")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


def assert_fits(page: Any, selector: str) -> None:
    """The dialogue lies inside the viewport and scrolls itself; nothing overflows sideways."""
    fits = page.evaluate(
        """(sel) => {
            const m = document.querySelector(sel);
            const r = m.getBoundingClientRect();
            return {
                page: document.documentElement.scrollWidth <= window.innerWidth,
                inside: r.left >= 0 && r.right <= window.innerWidth + 0.5
                    && r.top >= 0 && r.bottom <= window.innerHeight + 0.5,
                sideways: m.scrollWidth <= m.clientWidth + 1,
                scrolls: getComputedStyle(m).overflowY === "auto",
            };
        }""",
        selector,
    )
    assert fits == {"page": True, "inside": True, "sideways": True, "scrolls": True}


def wait_until(page: Any, expression: str, timeout: float = 30_000) -> None:
    """Poll ``expression`` in ``page`` until it is truthy, at most ``timeout`` ms.

    Playwright's ``wait_for_function`` compiles its predicate inside the page, which the
    pages' Content-Security-Policy (no ``unsafe-eval``) refuses; ``evaluate`` is not
    subject to it.
    """
    end = time.monotonic() + timeout / 1000
    while not page.evaluate(expression):
        if time.monotonic() > end:
            raise TimeoutError(f"not true within {timeout:.0f} ms: {expression}")
        time.sleep(0.05)
