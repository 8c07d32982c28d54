"""A bot for 麻将亲友圈, written from the public documents alone (docs/bots.md).

It logs in once with a password to make a personal API token, then uses only the token:
it opens a practice room (练习房, the platform's 电脑 in the other seats), says ready, and
plays the match to the end over the table socket, then prints the match's hands.

    pip install websockets
    python examples/bot.py --server http://127.0.0.1:8000 --user zhangsan --password demo12345
    python examples/bot.py --register --user 我的机器人 --password '一个够长的密码2026'

Standard library plus websockets. Its strategy is simple: win when it can, else
discard the tile whose hint (听牌提示) leaves the hand closest to ready, else pass.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import secrets
import urllib.error
import urllib.request
from http.cookiejar import CookieJar
from typing import Any

from websockets.asyncio.client import connect


class Api:
    """JSON over HTTP to ``<server>/api``: with a session cookie, or with a token."""

    def __init__(self, server: str, token: str = "") -> None:
        self.server, self.token = server, token
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(CookieJar()))
        self.csrf = ""

    def __call__(self, method: str, path: str, body: Any = None) -> Any:
        headers = {"Content-Type": "application/json", "Referer": self.server + "/"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"  # no cookie, no CSRF
        elif self.csrf:
            headers["X-CSRFToken"] = self.csrf
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(f"{self.server}/api{path}", data, headers,
                                         method=method)
        try:
            with self.opener.open(request, timeout=30) as response:
                text = response.read()
        except urllib.error.HTTPError as refused:  # every 4xx: {"type", "errors": [...]}
            raise SystemExit(f"{method} {path}: {refused.code} {refused.read().decode()}") from None
        return json.loads(text) if text else None


def make_token(server: str, username: str, password: str, *, register: bool) -> str:
    """Register or log in (session + CSRF, as the README shows); make a read+play token."""
    web = Api(server)
    web.csrf = web("GET", "/auth/csrf/")["csrf_token"]
    web.csrf = web("POST", "/auth/register/" if register else "/auth/login/",
                   {"username": username, "password": password})["csrf_token"]
    made = web("POST", "/auth/tokens/", {"name": "示例机器人", "scopes": ["read", "play"]})
    return str(made["token"])  # shown this once: keep it somewhere safe


def open_practice_room(api: Api) -> str:
    """A practice room in a club I own (a new club if I own none); returns its code."""
    owned = [c["id"] for c in api("GET", "/clubs/") if c["my_role"] == "owner"]
    club = owned[0] if owned else api("POST", "/clubs/", {"name": "机器人练习圈"})["id"]
    room = api("POST", f"/clubs/{club}/rooms/", {
        "variant": "zigong", "practice": True,
        "settings": {"players": 2, "hands_per_match": 4, "luobo": 0, "declare_pause_ms": 0},
    })
    if None in room["seats"]:  # a practice room is full already; any other needs 电脑补位
        api("POST", f"/rooms/{room['code']}/computers/")
    api("POST", f"/rooms/{room['code']}/ready/", {"ready": True})  # all ready: it starts
    return str(room["code"])


def choose(frame: dict[str, Any]) -> dict[str, Any] | None:
    """My move now (an entry of observation.me.legal), or None when I have none."""
    obs = frame.get("observation") or {}
    legal = (obs.get("me") or {}).get("legal") or []
    if not legal:
        return None
    by_type = {entry["type"]: entry for entry in legal}
    if "win" in by_type:
        return by_type["win"]
    discards = [e for e in legal if e["type"] == "discard" and not e.get("declare")]
    if discards:
        shanten = {h["tile"]: h["shanten"] for h in frame.get("hints") or []}
        return min(discards, key=lambda e: shanten.get(e["tile"], 9))
    return by_type.get("pass", legal[0])


class Bot:
    def __init__(self, ws: Any) -> None:
        self.ws, self.ids = ws, itertools.count(1)
        self.frame: dict[str, Any] = {}
        self.asked: dict[int, dict[str, Any]] = {}  # my messages still unanswered, by id
        self.contributed: set[int] = set()

    async def send(self, message: dict[str, Any]) -> None:
        message["id"] = next(self.ids)
        self.asked[message["id"]] = message
        await self.ws.send(json.dumps(message))

    async def play(self) -> dict[str, Any]:
        """Play until the match is over; return the last table."""
        async for text in self.ws:
            frame = json.loads(text)
            self.asked.pop(frame.get("id"), None)  # the answer to one of my messages
            if frame["type"] == "error":
                if frame["code"] == "stale_version":
                    await self.send({"type": "hello", "v": self.frame.get("v")})
                continue
            if frame["type"] not in ("snapshot", "update", "catchup"):
                continue  # waiting, presence, phrase
            self.frame = frame
            table = frame["table"]
            if table["status"] != "playing":
                return table
            if self.asked:
                continue  # one message at a time: wait for its answer
            await self.act(frame, table)
        raise ConnectionError("the table socket closed before the match ended")

    async def act(self, frame: dict[str, Any], table: dict[str, Any]) -> None:
        seat = frame.get("seat")
        upcoming = table.get("next")
        if table["stage"] == "between" and upcoming and upcoming["hand"] not in self.contributed:
            self.contributed.add(upcoming["hand"])  # my share of the next wall's randomness
            await self.send({"type": "contribute", "hand": upcoming["hand"],
                             "value": secrets.token_hex(32)})
        elif table["stage"] == "between" and seat not in table["ready"] and table["hand"]:
            await self.send({"type": "ready_next"})
        elif table["stage"] == "hand" and (move := choose(frame)) is not None:
            await self.send({**move, "v": frame["v"]})


async def play_match(server: str, token: str, code: str) -> dict[str, Any]:
    ws_url = server.replace("http", "ws", 1) + f"/ws/rooms/{code}/"
    async with connect(ws_url, origin=server,  # type: ignore[arg-type]
                       additional_headers={"Authorization": f"Bearer {token}"}) as ws:
        return await Bot(ws).play()


def main() -> None:
    parser = argparse.ArgumentParser(description="示例机器人：开练习房，和电脑打完一场")
    parser.add_argument("--server", default="http://127.0.0.1:8000")
    parser.add_argument("--user", required=True)
    parser.add_argument("--password", required=True)
    parser.add_argument("--register", action="store_true", help="先注册这个账号")
    args = parser.parse_args()
    token = make_token(args.server, args.user, args.password, register=args.register)
    api = Api(args.server, token)
    code = open_practice_room(api)
    print(f"房间 {code}")
    table = asyncio.run(play_match(args.server, token, code))
    print(f"对局结束：{table['status']}，总分 {table['totals']}")
    hands = api("GET", f"/ledgers/matches/{table['match']}/hands/")
    for hand in hands["hands"]:
        print(f"第 {hand['number']} 局 得分 {hand['points']}（练习：{hands['practice']}）")


if __name__ == "__main__":
    main()
