"""``manage.py ledger_verify``: recompute every settled hand and compare with the ledger."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from apps.ledgers.verify import verify_all


class Command(BaseCommand):
    help = "重算每一局并与账本核对；报告每一处差异（有差异时以非零状态退出）。"

    def handle(self, *args: Any, **options: Any) -> None:
        """Print each problem; fail if there is any."""
        problems = 0
        for problem in verify_all():
            problems += 1
            self.stdout.write(f"差异 {problem}")
        if problems:
            raise CommandError(f"账本核对失败: {problems} 处差异")
        self.stdout.write(self.style.SUCCESS("账本核对通过: 没有差异"))
