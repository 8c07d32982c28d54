"""The ledger REST API: thin views over the selectors and services, with the same
permission rules as the pages (they live in the selectors and services)."""

from __future__ import annotations

import re
from typing import Any

from django.db.models import QuerySet
from django.http import HttpResponse, StreamingHttpResponse
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions, status
from rest_framework.generics import ListAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.models import User
from apps.clubs.models import Room
from apps.core.api_errors import Conflict
from apps.core.auth import AuthenticatedRequest
from apps.core.pagination import NewestFirstPagination
from apps.core.query import QueryInput
from apps.matches.models import Hand, Match, MatchPlayer
from majiang.record import dumps

from .. import selectors, services
from ..errors import RequestKeyReusedError
from ..exports import ledger_csv
from ..models import LedgerEntry
from ..replay import hand_replay
from . import serializers as s

IDEMPOTENCY_HEADER = "Idempotency-Key"
IDEMPOTENCY_KEY = re.compile(r"^[A-Za-z0-9_.:-]{1,40}$")
IDEMPOTENCY = OpenApiParameter(
    IDEMPOTENCY_HEADER, str, OpenApiParameter.HEADER, required=False,
    pattern=IDEMPOTENCY_KEY.pattern,
    description="请求编号（如 UUID）：同一编号、同样内容再次提交得到同一个 201，不会重复记账；"
    "同一编号、不同内容为 409",
)
LOCATION = OpenApiParameter(
    "Location", str, OpenApiParameter.HEADER, response=[201], required=True,
    description="新记录的地址",
)


class LedgerAPIView(APIView):
    """An API view of the ledger. Service errors become 400/403/404 answers in
    :mod:`apps.core.api_errors` (the API's exception handler)."""

    def query(self, serializer_class: type[QueryInput]) -> dict[str, Any]:
        """The validated query parameters (an unknown one or a bad value: 400)."""
        query = serializer_class(data=self.request.query_params)
        query.is_valid(raise_exception=True)
        return dict(query.validated_data)

    def scope(
        self, club_id: int, query: type[s.LedgerFilterInput] = s.LedgerFilterInput
    ) -> tuple[selectors.LedgerAccess, selectors.LedgerFilters]:
        """The caller's access to the club and the validated filters of the query."""
        access = selectors.ledger_access(club_id=club_id, user=self.request.user)
        data = self.query(query)
        room_id = None
        if "room" in data:
            room = Room.objects.filter(club=access.club, code=data["room"]).first()
            if room is None:
                raise exceptions.ValidationError({"room": "这个亲友圈没有这个房间"})
            room_id = room.pk
        return access, selectors.LedgerFilters(
            start=data.get("start"), end=data.get("end"), member_id=data.get("member"),
            room_id=room_id, variant=data.get("variant", ""),
        )

    def share(self) -> str:
        return str(self.query(s.ShareInput).get("share", ""))


class ClubEntriesView(LedgerAPIView, ListAPIView):  # type: ignore[type-arg]
    serializer_class = s.LedgerEntryOutput
    pagination_class = NewestFirstPagination

    def get_queryset(self) -> QuerySet[LedgerEntry]:
        access, filters = self.scope(self.kwargs["club_id"], s.PagedLedgerFilterInput)
        return selectors.ledger_entry_list(access=access, filters=filters)

    @extend_schema(parameters=[s.LedgerFilterInput],
                   summary="亲友圈账本明细（最新在前，按游标分页）")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class ClubEntryView(LedgerAPIView):
    @extend_schema(responses=s.LedgerEntryOutput, summary="一条账本记录")
    def get(self, request: AuthenticatedRequest, club_id: int, entry_id: int) -> Response:
        access = selectors.ledger_access(club_id=club_id, user=request.user)
        return Response(s.LedgerEntryOutput(
            selectors.ledger_entry_get(access=access, entry_id=entry_id)
        ).data)


class ClubSummaryView(LedgerAPIView):
    @extend_schema(parameters=[s.LedgerFilterInput], responses=s.SummaryOutput,
                   summary="成员统计与每日汇总")
    def get(self, request: AuthenticatedRequest, club_id: int) -> Response:
        access, filters = self.scope(club_id)
        return Response(s.SummaryOutput({
            "members": selectors.member_totals(access=access, filters=filters),
            "daily": selectors.daily_summary(access=access, filters=filters),
        }).data)


class ClubExportView(LedgerAPIView):
    @extend_schema(parameters=[s.LedgerFilterInput],
                   responses={(200, "text/csv"): OpenApiTypes.STR}, summary="导出账本 CSV")
    def get(self, request: AuthenticatedRequest, club_id: int) -> StreamingHttpResponse:
        access, filters = self.scope(club_id)
        entries = selectors.ledger_entry_list(access=access, filters=filters)
        response = StreamingHttpResponse(ledger_csv(entries.iterator()), content_type="text/csv")
        response["Content-Disposition"] = f'attachment; filename="club{club_id}-ledger.csv"'
        return response


class ClubAdjustmentView(LedgerAPIView):
    @extend_schema(
        request=s.AdjustmentInput, parameters=[IDEMPOTENCY, LOCATION],
        responses={
            201: s.LedgerEntryOutput,
            409: OpenApiResponse(description="请求编号已用于另一笔调账"),
        },
        summary="圈主调账",
    )
    def post(self, request: AuthenticatedRequest, club_id: int) -> Response:
        access = selectors.ledger_access(club_id=club_id, user=request.user)
        key = request.headers.get(IDEMPOTENCY_HEADER, "")
        if key and not IDEMPOTENCY_KEY.match(key):
            raise exceptions.ValidationError(
                {IDEMPOTENCY_HEADER: "请求编号只能是 1 到 40 个字母、数字或 _ . : -"}
            )
        data = s.AdjustmentInput(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        try:
            entry = services.ledger_adjustment_create(
                club=access.club, actor=request.user, match_id=v["match"], payer_id=v["payer"],
                payee_id=v["payee"], points=v["points"], reason=v["reason"],
                corrects_id=v.get("corrects"),
                # Keys are the caller's own: another owner's key never finds this entry.
                request_key=f"api:{request.user.pk}:{key}" if key else "",
            )
        except RequestKeyReusedError as reused:
            raise Conflict(RequestKeyReusedError.MESSAGE, code="idempotency_key_reused") from reused
        location = reverse(
            "api-ledger-entry", kwargs={"club_id": club_id, "entry_id": entry.pk}
        )
        return Response(s.LedgerEntryOutput(entry).data, status=status.HTTP_201_CREATED,
                        headers={"Location": request.build_absolute_uri(location)})


class MyMatchesView(LedgerAPIView, ListAPIView):  # type: ignore[type-arg]
    serializer_class = s.MyMatchOutput
    pagination_class = NewestFirstPagination

    def get_queryset(self) -> QuerySet[MatchPlayer]:
        data = self.query(s.MyMatchFilterInput)
        filters = selectors.MyFilters(
            club_id=data.get("club"), variant=data.get("variant", ""),
            start=data.get("start"), end=data.get("end"),
        )
        user = self.request.user
        assert isinstance(user, User)  # IsAuthenticated
        return selectors.my_match_seat_list(user=user, filters=filters)

    @extend_schema(parameters=[s.MyMatchFilterInput], summary="我的战绩（最新在前，按游标分页）")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        seats = self.paginate_queryset(self.get_queryset())
        assert seats is not None  # the view has a paginator
        out = [
            {
                "match": m["match"].pk, "club": m["match"].club_id,
                "room_code": m["match"].room.code, "variant": m["match"].variant,
                "status": m["match"].status, "seat": m["seat"], "points": m["points"],
                "amount": m["amount"], "booked": m["booked"],
                "big_winner": bool(m["result"] and m["result"].big_winner),
                "hands": [
                    {"hand": h["hand"].pk, "number": h["hand"].number, "points": h["points"],
                     "amount": h["amount"], "won": h["won"]}
                    for h in m["hands"]
                ],
            }
            for m in selectors.my_match_rows(user=request.user, seats=seats)  # type: ignore[arg-type]
        ]
        # With many=True a Serializer takes a list of instances; only ModelSerializer's stub
        # says so.
        return self.get_paginated_response(
            s.MyMatchOutput(out, many=True).data  # type: ignore[arg-type]
        )


class HandView(LedgerAPIView):
    @extend_schema(parameters=[s.ShareInput], responses=s.HandOutput, summary="一局的结算明细")
    def get(self, request: AuthenticatedRequest, hand_id: int) -> Response:
        hand = selectors.hand_get_for_viewer(
            hand_id=hand_id, user=request.user, share=self.share()
        )
        return Response(s.HandOutput({
            "id": hand.pk, "match": hand.match_id, "number": hand.number,
            "settlement": hand.settlement, "lines": selectors.hand_lines_in_words(hand),
        }).data)


class HandReplayView(LedgerAPIView):
    @extend_schema(parameters=[s.ShareInput], responses=OpenApiTypes.OBJECT,
                   summary="回放帧（仅限已结算的牌局）")
    def get(self, request: AuthenticatedRequest, hand_id: int) -> Response:
        hand = selectors.hand_get_for_viewer(
            hand_id=hand_id, user=request.user, share=self.share()
        )
        return Response(hand_replay(hand))


class HandRecordView(LedgerAPIView):
    @extend_schema(parameters=[s.ShareInput],
                   responses={200: OpenApiResponse(OpenApiTypes.OBJECT, "majiang-record/1")},
                   summary="下载牌谱 JSON")
    def get(self, request: AuthenticatedRequest, hand_id: int) -> HttpResponse:
        hand = selectors.hand_get_for_viewer(
            hand_id=hand_id, user=request.user, share=self.share()
        )
        response = HttpResponse(dumps(hand.record or {}), content_type="application/json")
        name = f"match{hand.match_id}-hand{hand.number}.json"
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        return response


class MatchHandsView(LedgerAPIView):
    @extend_schema(responses=s.MatchHandsOutput,
                   summary="一场对局的各局得分（练习对局也列出，标明不记账）")
    def get(self, request: AuthenticatedRequest, match_id: int) -> Response:
        club_id = Match.objects.filter(pk=match_id).values_list("club_id", flat=True).first()
        if club_id is None:
            raise exceptions.NotFound("对局不存在")
        access = selectors.ledger_access(club_id=club_id, user=request.user)
        match = selectors.match_get_for_viewer(access=access, match_id=match_id)
        players = MatchPlayer.objects.filter(match=match).select_related("user").order_by("seat")
        hands = Hand.objects.filter(match=match, settlement__isnull=False).order_by("number")
        return Response(s.MatchHandsOutput({
            "match": match.pk, "club": match.club_id, "room_code": match.room.code,
            "variant": match.variant, "status": match.status, "practice": match.practice,
            "booked": match.booked,
            "seats": [{"seat": p.seat, "name": str(p.user), "computer": p.computer,
                       "bot": p.user.is_bot} for p in players],
            "hands": [{"hand": h.pk, "number": h.number, "dealer": h.dealer,
                       "points": (h.settlement or {})["totals"], "ended_at": h.ended_at}
                      for h in hands],
        }).data)
