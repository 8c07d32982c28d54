"""Command line: ``python -m majiang replay FILE`` prints a record's outcome as JSON.

The output holds every seat's final observation and, for an ended hand, the settlement.
It is deterministic: the same record gives the same bytes. A bad record prints the first
bad action and why, and exits with status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from majiang.errors import RecordError
from majiang.record import dumps, replay


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m majiang")
    sub = parser.add_subparsers(dest="command", required=True)
    rep = sub.add_parser("replay", help="replay a game record and print the outcome")
    rep.add_argument("file", type=Path)
    args = parser.parse_args(argv)
    try:
        data = json.loads(args.file.read_text(encoding="utf-8"))
        rnd = replay(data)
    except (OSError, json.JSONDecodeError, RecordError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    out = {
        "ended": rnd.ended,
        "observations": [rnd.observation(seat) for seat in range(rnd.players)],
    }
    if rnd.ended:
        out["settlement"] = rnd.settlement().to_json()
        out["next_dealer"] = list(rnd.next_dealer())
    sys.stdout.write(dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
