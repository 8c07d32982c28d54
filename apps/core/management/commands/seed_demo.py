"""``manage.py seed_demo``: create demo players, a demo club with one rule template per
registered variant and a waiting room (idempotent)."""

from typing import Any

from django.core.management.base import BaseCommand
from django.db import transaction

from apps.accounts.models import User
from apps.clubs.models import Club, Membership, Room, RuleTemplate
from apps.clubs.services.clubs import club_create
from apps.clubs.services.rooms import room_create
from apps.clubs.services.templates import rule_template_create
from majiang.variants import player_variants

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


DEMO_CLUB_NAME = "周末麻将圈"


def seed_club(users: list[User]) -> Club:
    """The demo club owned by the first demo player, with the others as members (the
    second as admin), a template per variant clubs play and one waiting room."""
    owner, *others = users
    club = Club.objects.filter(
        name=DEMO_CLUB_NAME, memberships__user=owner, memberships__role=Membership.Role.OWNER
    ).first()
    if club is None:
        club = club_create(owner=owner, name=DEMO_CLUB_NAME, notice="欢迎来玩！周末晚上八点开局。")
    for index, user in enumerate(others):
        role = Membership.Role.ADMIN if index == 0 else Membership.Role.MEMBER
        Membership.objects.get_or_create(club=club, user=user, defaults={"role": role})
    for variant in player_variants():
        name = f"{variant.name}·标准"
        if not RuleTemplate.objects.filter(club=club, name=name).exists():
            rule_template_create(club=club, actor=owner, name=name, variant=variant.id, settings={})
    if not Room.objects.filter(club=club, status=Room.Status.WAITING).exists():
        template = RuleTemplate.objects.filter(club=club).order_by("pk").first()
        if template is not None:
            room_create(club=club, actor=owner, template=template)
    return club


class Command(BaseCommand):
    """Seed the database with demo data for local play."""

    help = (
        "Create demo players 张三/李四/王五/赵六 (password demo12345) and their club "
        f"{DEMO_CLUB_NAME}; safe to re-run."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        """Seed everything inside one transaction."""
        with transaction.atomic():
            users = seed_users()
            club = seed_club(users)
        names = "、".join(user.display_name for user in users)
        message = f"Demo players ready: {names} (password {DEMO_PASSWORD})"
        self.stdout.write(self.style.SUCCESS(message))
        self.stdout.write(self.style.SUCCESS(f"Demo club: {club.name} (圈号 {club.pk})"))
