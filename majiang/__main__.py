"""Command line for game records (see ``docs/record-format.md``).

``python -m majiang replay FILE`` prints a record's outcome as JSON: every seat's final
observation and, for an ended hand, the settlement. It is deterministic: the same record
gives the same bytes. ``--summary`` prints the result, the lines in words and the totals
instead. A record that stops before the hand ends prints a warning on standard error;
``--strict`` makes that exit with status 1.

``python -m majiang record build SPEC`` writes the record that a build spec describes (each
seat's dealt hand, the draws and replacements in order, the 萝卜 or turned tile), with its
wall written out.

A bad record or spec prints one ``error: …`` line (the first problem, with its code) and
exits with status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from majiang.errors import RecordError
from majiang.record import build, dumps, replay, waiting_text
from majiang.round import Round
from majiang.state import WinSource

_REASONS = {"win": "胡牌", "exhausted": "流局 (牌摸完)", "last_player": "只剩一家未胡"}
_SOURCES = {
    WinSource.SELF_DRAW: "自摸",
    WinSource.DISCARD: "点炮",
    WinSource.ROBBING: "抢杠",
}


def summary_text(rnd: Round) -> str:
    """An ended hand in words: the result, each line, the totals and the next dealer."""
    assert rnd.end_reason is not None
    out = [f"结果: {_REASONS[rnd.end_reason]}"]
    for win in rnd.wins:
        how = _SOURCES[win.source]
        fed = f", 座位{win.from_seat}" if win.from_seat is not None else ""
        out.append(f"  座位{win.seat} 胡 {win.tile.code} ({how}{fed})")
    settlement = rnd.settlement()
    out.append("明细:" if settlement.lines else "明细: 无输赢")
    for number, line in enumerate(settlement.lines, start=1):
        note = f" ({line.note})" if line.note else ""
        out.append(
            f"  {number}. 座位{line.payer} 付 座位{line.payee} {line.points}分:"
            f" {line.category}{note} [{line.kind.value}, {line.ruling}]"
        )
    totals = ", ".join(f"座位{s} {t:+d}" for s, t in enumerate(settlement.totals))
    out.append(f"合计: {totals}")
    dealer, streak = rnd.next_dealer()
    out.append(f"下局: 座位{dealer} 坐庄, 连庄数 {streak}")
    return "\n".join(out) + "\n"


def _replay(args: argparse.Namespace) -> int:
    data = json.loads(args.file.read_text(encoding="utf-8"))
    rnd = replay(data)
    if not rnd.ended:
        print(
            f"warning: 记录在本局结束前停止, 仍在等待 {waiting_text(rnd)} [not_ended]",
            file=sys.stderr,
        )
    if args.summary:
        sys.stdout.write(summary_text(rnd) if rnd.ended else "结果: 未结束\n")
    else:
        out: dict[str, Any] = {
            "ended": rnd.ended,
            "observations": [rnd.observation(seat) for seat in range(rnd.players)],
        }
        if rnd.ended:
            out["settlement"] = rnd.settlement().to_json()
            out["next_dealer"] = list(rnd.next_dealer())
        sys.stdout.write(dumps(out))
    return 1 if args.strict and not rnd.ended else 0


def _build(args: argparse.Namespace) -> int:
    record = build(json.loads(args.spec.read_text(encoding="utf-8")))
    replay(record)  # a record that does not replay is reported now, not when it is read
    text = dumps(record)
    if args.output is None:
        sys.stdout.write(text)
    else:
        args.output.write_text(text, encoding="utf-8")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m majiang")
    sub = parser.add_subparsers(dest="command", required=True)
    rep = sub.add_parser("replay", help="replay a game record and print the outcome")
    rep.add_argument("file", type=Path)
    rep.add_argument("--summary", action="store_true", help="print the result in words")
    rep.add_argument(
        "--strict", action="store_true", help="exit 1 when the record stops before the end"
    )
    rec = sub.add_parser("record", help="write game records")
    rec_sub = rec.add_subparsers(dest="record_command", required=True)
    bld = rec_sub.add_parser("build", help="write a record's wall from the dealt hands and draws")
    bld.add_argument("spec", type=Path)
    bld.add_argument("-o", "--output", type=Path, help="write here instead of standard output")
    args = parser.parse_args(argv)
    try:
        return _replay(args) if args.command == "replay" else _build(args)
    except (OSError, json.JSONDecodeError, RecordError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
