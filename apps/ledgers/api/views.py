"""The ledger REST API: thin views over the selectors and services, with the same
permission rules as the pages (they live in the selectors and services)."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse, StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.core.auth import AuthenticatedRequest
from majiang.record import dumps

from .. import selectors, services
from ..exports import ledger_csv
from ..replay import hand_replay
from . import serializers as s

SHARE = OpenApiParameter("share", str, required=False, description="回放分享链接的令牌")
ENTRY_LIMIT = 1000


class LedgerAPIView(APIView):
    """An API view of the ledger. Service errors become 400/403/404 answers in
    :mod:`apps.core.api_errors` (the API's exception handler)."""

    def scope(self, club_id: int) -> tuple[selectors.LedgerAccess, selectors.LedgerFilters]:
        """The caller's access to the club and the validated filters of the query."""
        access = selectors.ledger_access(club_id=club_id, user=self.request.user)
        query = s.LedgerFilterInput(data=self.request.query_params)
        query.is_valid(raise_exception=True)
        data: dict[str, Any] = dict(query.validated_data)
        return access, selectors.LedgerFilters(
            start=data.get("start"), end=data.get("end"), member_id=data.get("member"),
            room_id=data.get("room"), variant=data.get("variant", ""),
        )


class ClubEntriesView(LedgerAPIView):
    @extend_schema(parameters=[s.LedgerFilterInput], responses=s.LedgerEntryOutput(many=True),
                   summary="亲友圈账本明细（最近 1000 条）")
    def get(self, request: AuthenticatedRequest, club_id: int) -> Response:
        access, filters = self.scope(club_id)
        entries = selectors.ledger_entry_list(access=access, filters=filters)
        return Response(s.LedgerEntryOutput(entries.reverse()[:ENTRY_LIMIT], many=True).data)


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
    @extend_schema(request=s.AdjustmentInput, responses={201: s.LedgerEntryOutput},
                   summary="圈主调账")
    def post(self, request: AuthenticatedRequest, club_id: int) -> Response:
        access = selectors.ledger_access(club_id=club_id, user=request.user)
        data = s.AdjustmentInput(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        entry = services.ledger_adjustment_create(
            club=access.club, actor=request.user, match_id=v["match"], payer_id=v["payer"],
            payee_id=v["payee"], points=v["points"], reason=v["reason"],
            corrects_id=v.get("corrects"),
        )
        return Response(s.LedgerEntryOutput(entry).data, status=status.HTTP_201_CREATED)


class MyMatchesView(LedgerAPIView):
    @extend_schema(responses=s.MyMatchOutput(many=True), summary="我的战绩")
    def get(self, request: AuthenticatedRequest) -> Response:
        out = [
            {
                "match": m["match"].pk, "club": m["match"].club_id,
                "room_code": m["match"].room.code, "variant": m["match"].variant,
                "status": m["match"].status, "seat": m["seat"], "points": m["points"],
                "amount": m["amount"],
                "big_winner": bool(m["result"] and m["result"].big_winner),
                "hands": [
                    {"hand": h["hand"].pk, "number": h["hand"].number, "points": h["points"],
                     "amount": h["amount"], "won": h["won"]}
                    for h in m["hands"]
                ],
            }
            for m in selectors.my_match_list(user=request.user)
        ]
        # With many=True a Serializer takes a list of instances; only ModelSerializer's stub
        # says so.
        return Response(s.MyMatchOutput(out, many=True).data)  # type: ignore[arg-type]


class HandView(LedgerAPIView):
    @extend_schema(parameters=[SHARE], responses=s.HandOutput, summary="一局的结算明细")
    def get(self, request: AuthenticatedRequest, hand_id: int) -> Response:
        hand = selectors.hand_get_for_viewer(
            hand_id=hand_id, user=request.user, share=request.query_params.get("share", "")
        )
        return Response(s.HandOutput({
            "id": hand.pk, "match": hand.match_id, "number": hand.number,
            "settlement": hand.settlement, "lines": selectors.hand_lines_in_words(hand),
        }).data)


class HandReplayView(LedgerAPIView):
    @extend_schema(parameters=[SHARE], responses=OpenApiTypes.OBJECT,
                   summary="回放帧（仅限已结算的牌局）")
    def get(self, request: AuthenticatedRequest, hand_id: int) -> Response:
        hand = selectors.hand_get_for_viewer(
            hand_id=hand_id, user=request.user, share=request.query_params.get("share", "")
        )
        return Response(hand_replay(hand))


class HandRecordView(LedgerAPIView):
    @extend_schema(parameters=[SHARE],
                   responses={200: OpenApiResponse(OpenApiTypes.OBJECT, "majiang-record/1")},
                   summary="下载牌谱 JSON")
    def get(self, request: AuthenticatedRequest, hand_id: int) -> HttpResponse:
        hand = selectors.hand_get_for_viewer(
            hand_id=hand_id, user=request.user, share=request.query_params.get("share", "")
        )
        response = HttpResponse(dumps(hand.record or {}), content_type="application/json")
        name = f"match{hand.match_id}-hand{hand.number}.json"
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        return response
