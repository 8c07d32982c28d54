"""The business rules, through the service layer that pages, API and consumers share."""

from __future__ import annotations

from unittest import mock

import pytest

from apps.clubs import selectors
from apps.clubs.errors import ActionForbidden, ClubNotFound, InvalidInputError
from apps.clubs.models import JoinRequest, Membership, Room, RoomSeat
from apps.clubs.services import clubs, members, rooms, templates
from apps.matches.models import Match
from majiang.variants import VARIANTS

from .conftest import World, db_snapshot, fill_room, make_user

Role = Membership.Role


def test_creator_becomes_the_only_owner(world: World) -> None:
    club = clubs.club_create(owner=world.outsider, name="新圈")
    assert selectors.membership_role(club, world.outsider) == Role.OWNER
    assert len(club.invite_code) == 8


def test_transfer_keeps_exactly_one_owner(world: World) -> None:
    members.club_ownership_transfer(club=world.club, actor=world.owner, new_owner=world.member)
    roles = dict(Membership.objects.values_list("user__username", "role"))
    assert roles["member"] == Role.OWNER
    assert roles["owner"] == Role.ADMIN
    assert list(roles.values()).count(Role.OWNER) == 1
    with pytest.raises(ActionForbidden):
        members.club_ownership_transfer(club=world.club, actor=world.owner, new_owner=world.admin)


def test_owner_cannot_leave_or_be_removed(world: World) -> None:
    with pytest.raises(InvalidInputError):
        members.membership_leave(club=world.club, user=world.owner)
    with pytest.raises(ActionForbidden):
        members.membership_remove(club=world.club, actor=world.admin, user=world.owner)
    assert selectors.membership_role(world.club, world.owner) == Role.OWNER


def test_only_the_owner_appoints_admins(world: World) -> None:
    with pytest.raises(ActionForbidden):
        members.membership_role_set(
            club=world.club, actor=world.admin, user=world.member, role="admin"
        )
    members.membership_role_set(club=world.club, actor=world.owner, user=world.member, role="admin")
    assert selectors.membership_role(world.club, world.member) == Role.ADMIN


def test_non_members_are_told_the_club_does_not_exist(world: World) -> None:
    with pytest.raises(ClubNotFound):
        templates.rule_template_create(
            club=world.club, actor=world.outsider, name="x", variant="basic", settings={}
        )


def test_approval_makes_a_member(world: World) -> None:
    members.join_request_approve(join_request=world.join_request, actor=world.admin)
    world.join_request.refresh_from_db()
    assert world.join_request.status == JoinRequest.Status.APPROVED
    assert world.join_request.decided_by == world.admin
    assert selectors.membership_role(world.club, world.applicant) == Role.MEMBER


def test_applicant_may_withdraw(world: World) -> None:
    members.join_request_cancel(join_request=world.join_request, user=world.applicant)
    assert JoinRequest.objects.get().status == JoinRequest.Status.CANCELLED
    members.join_request_create(club=world.club, user=world.applicant)  # may ask again


def test_regenerated_invite_code_replaces_the_old_one(world: World) -> None:
    old = world.club.invite_code
    new = clubs.club_invite_code_regenerate(club=world.club, actor=world.admin)
    assert new != old
    assert selectors.club_find(invite_code=old) is None
    assert selectors.club_find(invite_code=new) == world.club


def test_leaving_member_stands_up(world: World) -> None:
    fill_room(world.room, [world.member, world.member2], ready=False)
    members.membership_leave(club=world.club, user=world.member)
    members.membership_remove(club=world.club, actor=world.admin, user=world.member2)
    assert not RoomSeat.objects.exists()


@pytest.mark.parametrize("variant_id", list(VARIANTS))
def test_template_settings_are_completed_with_defaults(world: World, variant_id: str) -> None:
    template = templates.rule_template_create(
        club=world.club,
        actor=world.admin,
        name=f"{variant_id} 默认",
        variant=variant_id,
        settings={},
    )
    assert template.settings == VARIANTS[variant_id].schema.defaults()


@pytest.mark.parametrize("variant_id", list(VARIANTS))
def test_room_has_seats_hands_and_stake_from_its_settings(world: World, variant_id: str) -> None:
    room = rooms.room_create(club=world.club, actor=world.owner, variant=variant_id, settings={})
    defaults = VARIANTS[variant_id].schema.defaults()
    assert room.seat_count == defaults["players"]
    assert room.hands_per_match == defaults["hands_per_match"]
    assert room.base_stake == defaults["base_stake"]
    assert len(room.code) == 6
    assert room.code.isdigit()


def test_rooms_keep_their_rules_when_the_template_changes(world: World) -> None:
    setting = next(s for s in VARIANTS[world.template.variant].schema.settings if s.kind == "int")
    room = rooms.room_create(club=world.club, actor=world.owner, template=world.template)
    frozen = dict(room.settings)
    new_value = setting.choices[0] if setting.choices else setting.minimum
    if new_value == frozen[setting.name]:
        new_value = setting.choices[-1] if setting.choices else setting.maximum
    templates.rule_template_update(
        template=world.template, actor=world.owner, settings={setting.name: new_value}
    )
    room.refresh_from_db()
    assert room.settings == frozen
    world.template.refresh_from_db()
    assert world.template.settings[setting.name] == new_value


def test_room_from_template_with_overrides(world: World) -> None:
    room = rooms.room_create(
        club=world.club, actor=world.owner, template=world.template, settings={"base_stake": 5}
    )
    assert room.template == world.template
    assert room.base_stake == 5
    assert room.name == world.template.name


def test_sit_moves_and_resets_ready(world: World) -> None:
    rooms.room_sit(room=world.room, user=world.member, seat=2)
    rooms.room_ready_set(room=world.room, user=world.member, ready=True)
    rooms.room_sit(room=world.room, user=world.member, seat=0)
    seat = RoomSeat.objects.get(user=world.member)
    assert (seat.seat, seat.ready) == (0, False)
    assert selectors.room_seat_of(world.room, world.member) == 0
    rooms.room_stand(room=world.room, user=world.member)
    assert selectors.room_seat_of(world.room, world.member) is None


def test_first_free_seat(world: World) -> None:
    fill_room(world.room, [world.owner], ready=False)
    assert rooms.room_sit(room=world.room, user=world.member).seat == 1


def test_the_last_ready_starts_the_match_in_its_transaction(world: World) -> None:
    players = [world.owner, world.admin, world.member, world.member2]
    players += [make_user(f"extra{i}") for i in range(world.room.seat_count - len(players))]
    players = players[: world.room.seat_count]
    for player in players:
        Membership.objects.get_or_create(club=world.club, user=player)
        rooms.room_sit(room=world.room, user=player)
    for player in players[:-1]:
        rooms.room_ready_set(room=world.room, user=player, ready=True)
    assert not Match.objects.filter(room=world.room).exists()
    rooms.room_ready_set(room=world.room, user=players[-1], ready=True)
    match = Match.objects.get(room=world.room)
    assert [p.user_id for p in match.players.order_by("seat")] == [p.pk for p in players]
    world.room.refresh_from_db()
    assert world.room.status == Room.Status.PLAYING


def test_a_match_that_cannot_start_undoes_the_ready(world: World) -> None:
    players = [make_user(f"p{i}") for i in range(world.room.seat_count)]
    fill_room(world.room, players[:-1])
    RoomSeat.objects.create(room=world.room, seat=len(players) - 1, user=players[-1])
    for player in players:
        Membership.objects.get_or_create(club=world.club, user=player)
    with mock.patch.object(rooms, "match_start", side_effect=RuntimeError("cannot start")), \
            pytest.raises(RuntimeError):
        rooms.room_ready_set(room=world.room, user=players[-1], ready=True)
    assert not RoomSeat.objects.get(user=players[-1]).ready
    assert not Match.objects.filter(room=world.room).exists()


def test_no_seat_changes_during_a_match(world: World) -> None:
    Room.objects.filter(pk=world.room.pk).update(status=Room.Status.PLAYING)
    before = db_snapshot()
    with pytest.raises(InvalidInputError):
        rooms.room_sit(room=world.room, user=world.member)
    with pytest.raises(InvalidInputError):
        rooms.room_close(room=world.room, actor=world.owner)
    assert db_snapshot() == before


def test_closing_a_room_stands_everyone_up(world: World) -> None:
    fill_room(world.room, [world.member], ready=False)
    rooms.room_close(room=world.room, actor=world.admin)
    world.room.refresh_from_db()
    assert world.room.status == Room.Status.CLOSED
    assert world.room.closed_at is not None
    assert not RoomSeat.objects.exists()
    with pytest.raises(InvalidInputError):
        rooms.room_close(room=world.room, actor=world.admin)
    assert list(selectors.room_list_open(club=world.club)) == []


def test_lobby_state(world: World) -> None:
    fill_room(world.room, [world.member], ready=True)
    state = selectors.lobby_state(world.room)
    assert state["code"] == world.room.code
    assert len(state["seats"]) == world.room.seat_count
    assert state["seats"][0] == {
        "seat": 0,
        "user_id": world.member.pk,
        "display_name": "王五",
        "initial": "王",
        "color": world.member.avatar_hex,
        "ready": True,
        "online": False,
        "computer": False,
    }
    assert state["seats"][1] is None
    assert state["winds"] == ["东", "南", "西", "北"]
    assert state["dealer"] == 0  # 都匀: the opener deals; not seated, so 东
    assert state["online"] == []


def test_selectors_for_live_play(world: World) -> None:
    assert selectors.room_get_by_code(world.room.code) == world.room
    assert selectors.room_get_by_code("000000") is None
    assert selectors.membership_role(world.club, world.outsider) is None
    assert selectors.membership_role(world.club, world.admin) == Role.ADMIN
    assert selectors.room_seat_of(world.room, world.member) is None
