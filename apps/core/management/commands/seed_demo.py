"""``manage.py seed_demo``: create demo players (idempotent)."""

from typing import Any

from django.core.management.base import BaseCommand
from django.db import transaction

from apps.accounts.models import User

DEMO_PASSWORD = "demo12345"
DEMO_PLAYERS = [
    ("zhangsan", "张三"),
    ("lisi", "李四"),
    ("wangwu", "王五"),
    ("zhaoliu", "赵六"),
]


def seed_users() -> list[User]:
    """Create the demo players if missing (password ``demo12345``) and return them."""
    users = []
    for username, display_name in DEMO_PLAYERS:
        user, created = User.objects.get_or_create(
            username=username, defaults={"display_name": display_name}
        )
        if created:
            user.set_password(DEMO_PASSWORD)
            user.save(update_fields=["password"])
        users.append(user)
    return users


class Command(BaseCommand):
    """Seed the database with demo data for local play."""

    help = "Create demo players 张三/李四/王五/赵六 (password demo12345); safe to re-run."

    def handle(self, *args: Any, **options: Any) -> None:
        """Seed everything inside one transaction."""
        with transaction.atomic():
            users = seed_users()
        names = "、".join(user.display_name for user in users)
        message = f"Demo players ready: {names} (password {DEMO_PASSWORD})"
        self.stdout.write(self.style.SUCCESS(message))
