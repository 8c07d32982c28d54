"""Automatic play: the advisor acting for seats in 托管 and for computer seats (电脑补位,
练习房), and a person taking a computer seat between hands.

A computer seat is a :class:`MatchPlayer` with ``computer`` set, seated by one of the
club's computer accounts (``User.is_computer``; see
:func:`apps.clubs.services.computers.computer_user`). It is always
in automatic play: the sweep (:func:`apps.matches.services.match_timers_fire`) treats it
like a seat in 托管, after :func:`apps.matches.pacing.auto_play_delay`. Every decision reads
only the seat's own observation (:func:`majiang.advisor.choose`).
"""

from __future__ import annotations

from apps.accounts.models import ComputerLevel, User
from apps.clubs.models import Club, Membership, Room, RoomSeat
from apps.clubs.services.common import BOTS_REFUSED
from apps.clubs.services.tables import room_seat_handover
from majiang import Action
from majiang.advisor import choose

from .change import MatchChange, change_run
from .models import Match, MatchEvent, MatchPlayer
from .protocol import MatchError, table_event


def seat_level(player: MatchPlayer) -> str:
    """The advisor's level for an automatic seat: a computer seat's account level
    (``User.computer_level``: 简单, 标准), 标准 for a person in 托管."""
    if player.computer and player.user.computer_level:
        return str(player.user.computer_level)
    return ComputerLevel.STANDARD


def advised_action(change: MatchChange, player: MatchPlayer) -> Action:
    """The advisor's action for an automatic seat at its level (:func:`seat_level`), from
    that seat's observation only."""
    rnd, match, hand = change.rnd, change.match, change.hand
    assert rnd is not None and hand is not None
    return choose(
        rnd.observation(player.seat), rnd.legal_actions(player.seat),
        level=seat_level(player), seed=f"{match.pk}:{hand.number}:{match.version}",
        settings=match.settings,
    )


def computer_votes(change: MatchChange) -> dict[str, bool]:
    """Computer seats agree to a dissolve vote at once (they have no stake in going on)."""
    return {str(p.seat): True for p in change.players if p.computer}


def match_seat_take(*, match_id: int, user: User, seat: int) -> None:
    """A club member takes a computer seat between hands.

    The seat's later hands are booked to the member; its hands so far stay the computer
    account's. Raises :class:`MatchError` with nothing changed."""
    change_run(match_id, lambda change: _take(change, user, seat))


def _take(change: MatchChange, user: User, seat: int) -> None:
    match = change.match
    if match.status != Match.Status.PLAYING or match.stage != Match.Stage.BETWEEN:
        raise MatchError("not_between_hands", "只能在两局之间接替电脑")
    if match.practice:
        raise MatchError("practice_room", "练习房不能接替电脑")
    if change.player_of(user.pk) is not None:
        raise MatchError("already_seated", "你已经在这桌入座了")
    if not Membership.objects.filter(club_id=match.club_id, user=user).exists():
        raise MatchError("not_member", "只有本亲友圈的成员可以入座")
    if user.is_bot and not Club.objects.filter(pk=match.club_id, bots_allowed=True).exists():
        raise MatchError("bots_not_allowed", BOTS_REFUSED)
    elsewhere = RoomSeat.objects.filter(
        user=user, room__status__in=(Room.Status.WAITING, Room.Status.PLAYING)
    ).exclude(room_id=match.room_id)
    if elsewhere.exists():
        raise MatchError("seated_elsewhere", "你已在其他房间入座，请先离座")
    player = next((p for p in change.players if p.seat == seat), None)
    if player is None or not player.computer:
        raise MatchError("not_computer_seat", "这个座位不是电脑")
    player.user, player.computer, player.auto_play = user, False, False
    player.consecutive_timeouts = 0
    MatchPlayer.objects.filter(pk=player.pk).update(user=user, computer=False)
    room_seat_handover(room_id=match.room_id, seat=seat, user=user)
    match.ready_seats = [s for s in match.ready_seats if s != seat]
    change.log(MatchEvent.Kind.TABLE, [table_event("seat_taken", seat, name=str(user))])
