"""The example bot (``examples/bot.py``), written from the documents alone, plays a practice
match to its end against a real server (``manage.py serve``: daphne, Celery, Redis), which
then stops cleanly on Ctrl-C, the way a player stops ``./dev run``."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

from apps.accounts.models import ApiToken, User
from apps.matches.models import Match
from tests.support.processes import ROOT, database_url, start_serve

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.services]


def test_the_example_bot_makes_a_token_opens_a_practice_room_and_plays_it_out(
    tmp_path: Path,
) -> None:
    with start_serve({**os.environ, "DATABASE_URL": database_url()}, tmp_path / "redis") as serve:
        bot = subprocess.run(
            [sys.executable, "examples/bot.py", "--server", f"http://127.0.0.1:{serve.port}",
             "--register", "--user", "botmaker", "--password", "long-bot-pass-2026"],
            cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
        )
        children = psutil.Process(serve.pid).children(recursive=True)
        assert len(children) >= 2  # daphne, the Celery worker
        assert serve.proc is not None
        serve.proc.send_signal(signal.SIGINT)
        assert serve.proc.wait(timeout=30) == 0
        _, alive = psutil.wait_procs(children, timeout=10)
        assert not alive, alive
    assert bot.returncode == 0, bot.stdout + bot.stderr
    user = User.objects.get(username="botmaker")
    match = Match.objects.get(players__user=user)
    assert match.status == Match.Status.FINISHED and match.practice
    assert "对局结束：finished" in bot.stdout
    assert match.hands.count() == 4
    for hand in match.hands.all():  # the match's hands, as the API lists them
        assert f"第 {hand.number} 局 得分 {hand.settlement['totals']}" in bot.stdout
    token = ApiToken.objects.get(user=user)
    assert token.play and token.last_used is not None and "mj_" not in token.digest
