"""``manage.py ledger_verify``: recompute every settled hand and compare with the ledger;
with ``--kept``, also check the chain extends heads members' browsers kept."""

from __future__ import annotations

from itertools import chain
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from apps.ledgers.verify import verify_all, verify_kept


class Command(BaseCommand):
    help = "重算每一局并与账本核对；报告每一处差异（有差异时以非零状态退出）。"

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--kept", action="append", default=[], metavar="圈号:条数:签名",
            help="成员浏览器记下的账本链头（账本页的警告中有），核对账本仍接在它之后；可多次给出",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        """Print each problem; fail if there is any."""
        problems = 0
        kept = []
        for text in options["kept"]:
            club, seq, last = [*text.split(":"), "", ""][:3]
            if not (club.isdecimal() and seq.isdecimal() and last):
                raise CommandError(f"--kept 应为 圈号:条数:签名，而不是 {text}")
            kept.append(verify_kept(int(club), int(seq), last))
        for problem in chain(*kept, verify_all()):
            problems += 1
            self.stdout.write(f"差异 {problem}")
        if problems:
            raise CommandError(f"账本核对失败: {problems} 处差异")
        self.stdout.write(self.style.SUCCESS("账本核对通过: 没有差异"))
