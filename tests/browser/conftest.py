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

from tests.support.processes import server_env, start_daphne, start_serve

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
ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = Path(os.environ.get("SCREENSHOTS_DIR") or ROOT / "var" / "screenshots")
"""Where browser tests save their screenshots: an ignored folder, so that a test run leaves
the work tree clean; ``./dev screenshots`` points it at ``docs/screenshots``."""
SCREENSHOTS.mkdir(parents=True, exist_ok=True)
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
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """One ``manage.py serve`` for the browser tests that play through the real platform:
    its own SQLite file (``db``) and embedded Redis, at the tests' quick pace for computer
    seats. Every test registers its players from this one address; each uses names of its
    own."""
    tmp = tmp_path_factory.mktemp("serve")
    db = tmp / "e2e.sqlite3"
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{db}", "DEBUG": "true",
           "REGISTRATION_RATE_LIMIT": "100"}
    with start_serve(env, tmp / "redis") as serve:
        yield {"url": f"http://127.0.0.1:{serve.port}", "db": db}


@pytest.fixture(scope="session")
def daphne_url(django_db_setup: None, django_db_blocker: Any, redis_url: str) -> Iterator[str]:
    """daphne serving ``config.asgi`` on a free port, on the test database and ``redis_url``,
    for the browser tests that set a table up through the services and fire its timers
    themselves (no Celery worker). Tests using it mark themselves ``transactional_db``."""
    with django_db_blocker.unblock():
        env = server_env(redis_url, queue=f"browser-{os.getpid()}")
    with start_daphne(env) as web:
        yield f"http://127.0.0.1:{web.port}"


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


@pytest.fixture(autouse=True)
def _close_pages(request: pytest.FixtureRequest) -> Iterator[None]:
    """Close every page a test opened, when it ends. A page left open keeps its table's
    socket, clock and animations running in the shared Chromium for the rest of the run
    (about a hundred renderer processes by the last browser test, each taking CPU from the
    tests still running)."""
    yield
    if "browser" in request.fixturenames:
        for context in request.getfixturevalue("browser").contexts:
            context.close()


def assert_no_sideways_scroll(page: Any) -> None:
    """Nothing on the page is wider than the screen. A phone's browser would widen the page
    (``innerWidth``) to its widest element and scale nothing: the player could pan sideways,
    and bars fixed to the screen's bottom edge would sit partly below it."""
    width = page.viewport_size["width"]
    wide = page.evaluate(
        """(width) => [...document.querySelectorAll('body *')]
            .filter(e => e.getBoundingClientRect().right > width + 0.5)
            .slice(0, 3).map(e => e.className.baseVal ?? e.className)""",
        width,
    )
    shown = page.evaluate("[innerWidth, document.documentElement.scrollWidth]")
    assert shown == [width, width], wide


def assert_fits(page: Any, selector: str) -> None:
    """The dialogue lies inside the viewport and scrolls itself; nothing overflows sideways."""
    assert_no_sideways_scroll(page)
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
