"""Share links, QR codes and 口令 of clubs and rooms.

A 口令 is a short text to paste into a chat: it names the club and carries the room number
(or invite code) and the link. The home page's 输入房间号 / 邀请码 box accepts a whole
pasted 口令 as well as the bare number or code (:func:`code_parse`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

import segno
from django.http import HttpRequest
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe

from .models import Club, Room
from .selectors import variant_name

ROOM_CODE = re.compile(r"(?<!\d)(\d{6})(?!\d)")
ROOM_CODE_MARKED = re.compile(r"房间号\s*(\d{6})(?!\d)|/rooms/(\d{6})/")
INVITE_CODE = re.compile(r"([A-HJ-NP-Za-hj-np-z2-9]{8})")
CLUB_ID = re.compile(r"^\s*(?:圈号\s*)?(\d{1,5})\s*$")
INVITE_IN_URL = re.compile(r"/join/([A-Za-z0-9]{8})/")
INVITE_AFTER_WORD = re.compile(r"邀请码\s*([A-Za-z0-9]{8})(?![A-Za-z0-9])")
CLUB_ID_IN_TEXT = re.compile(r"圈号\s*(\d{1,9})|/clubs/(\d{1,9})/")


@dataclass(frozen=True, slots=True)
class Share:
    """What the share dialog shows: a title, the link, its QR code and the 口令."""

    title: str
    url: str
    qr_svg: SafeString
    kouling: str


@dataclass(frozen=True, slots=True)
class ParsedCode:
    """What a player typed or pasted into the home page's box."""

    kind: Literal["room", "invite", "club"]
    value: str


def qr_svg(url: str) -> SafeString:
    """An inline SVG QR code of ``url`` (segno draws it; no external service)."""
    qr = segno.make(url, error="m")
    svg = qr.svg_inline(scale=5, border=2, dark="#1b1f1d", light="#ffffff", omitsize=True)
    return mark_safe(svg)  # segno draws the markup; it holds only our own URL


def room_share(request: HttpRequest, room: Room) -> Share:
    """The share of a room: its link (a non-member who opens it is asked to join)."""
    url = request.build_absolute_uri(reverse("clubs:lobby", args=[room.code]))
    title = f"「{room.club.name}」房间 {room.code}"
    rules = f"{variant_name(room.variant)} {room.seat_count}人{room.hands_per_match}局"
    kouling = (
        f"【麻将亲友圈】「{room.club.name}」{rules}，房间号 {room.code}。打开链接入座：{url}"
    )
    return Share(title=title, url=url, qr_svg=qr_svg(url), kouling=kouling)


def club_share(request: HttpRequest, club: Club) -> Share:
    """The share of a club: its page (a non-member who opens it may ask to join)."""
    url = request.build_absolute_uri(reverse("clubs:detail", args=[club.pk]))
    title = f"亲友圈「{club.name}」"
    kouling = f"【麻将亲友圈】{title}，圈号 {club.pk}。打开链接申请加入：{url}"
    return Share(title=title, url=url, qr_svg=qr_svg(url), kouling=kouling)


def invite_share(request: HttpRequest, club: Club, room: Room | None = None) -> Share:
    """The invite of a club: whoever opens it joins at once, without approval (and, with
    ``room``, lands in that room)."""
    path = reverse("clubs:invite", args=[club.invite_code])
    url = request.build_absolute_uri(f"{path}?room={room.code}" if room is not None else path)
    title = f"邀请加入「{club.name}」"
    where = f"，房间号 {room.code}" if room is not None else ""
    kouling = (
        f"【麻将亲友圈】{title}{where}，邀请码 {club.invite_code}。打开链接直接入圈：{url}"
    )
    return Share(title=title, url=url, qr_svg=qr_svg(url), kouling=kouling)


def code_parse(text: str) -> ParsedCode | None:
    """Read a room number (6 digits), an invite code (8 letters and digits), a 圈号 or a
    whole pasted 口令 or link; None if nothing in it looks like one."""
    text = text.strip()
    club_id = CLUB_ID.match(text)
    if club_id:
        return ParsedCode("club", club_id.group(1))
    invite = INVITE_IN_URL.search(text) or INVITE_AFTER_WORD.search(text)
    if invite is None and INVITE_CODE.fullmatch(text):
        invite = INVITE_CODE.fullmatch(text)
    if invite:
        return ParsedCode("invite", invite.group(1).upper())
    # Marked numbers before bare ones: a club's name may hold six digits of its own.
    room = ROOM_CODE_MARKED.search(text)
    if room:
        return ParsedCode("room", room.group(1) or room.group(2))
    club_in_text = CLUB_ID_IN_TEXT.search(text)
    if club_in_text:
        return ParsedCode("club", club_in_text.group(1) or club_in_text.group(2))
    room = ROOM_CODE.search(text)
    if room:
        return ParsedCode("room", room.group(1))
    return None
