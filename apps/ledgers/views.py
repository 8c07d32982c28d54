"""Ledger pages: 我的战绩, a hand's page, the club ledger, match tables, 结账, 调账, CSV
export, replays, records.

Thin views: every permission rule lives in :mod:`apps.ledgers.selectors` and
:mod:`apps.ledgers.services`, which raise 404/403 errors that Django renders.
"""

from __future__ import annotations

import secrets

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import (
    HttpRequest,
    HttpResponse,
    HttpResponseBadRequest,
    HttpResponseBase,
    JsonResponse,
    StreamingHttpResponse,
)
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import urlencode

from apps.core.auth import AuthenticatedHttpRequest
from majiang.record import dumps

from . import selectors, services
from .charts import cumulative_chart_svg
from .errors import ActionForbidden, ClubNotFound, InvalidInputError
from .exports import ledger_csv
from .forms import (
    AdjustmentForm,
    AdjustmentMatchForm,
    CheckoutMarkForm,
    CheckoutPeriodForm,
    LedgerFilterForm,
    MyResultsFilterForm,
    form_error_text,
)
from .payments import EXACT_LIMIT
from .replay import hand_replay, replay_share_token

ENTRIES_PER_PAGE = 100
HTTP_BAD_REQUEST = 400  # a bad or unknown filter: the page shows why, with this status
MATCHES_PER_PAGE = 20
RECENT_MATCHES = 10


def _query_without_page(request: HttpRequest) -> str:
    """The request's query string (the filters) without ``page``, for page links."""
    query = request.GET.copy()
    query.pop("page", None)
    return query.urlencode()


@login_required
def my_results(request: AuthenticatedHttpRequest) -> HttpResponse:
    """我的战绩: my statistics and chart, then my matches with their hands, 20 a page
    (``?page=N``), filtered by club, game and dates; a bad filter shows its error only."""
    query = request.GET.copy()
    query.pop("page", None)
    form = MyResultsFilterForm(query or None, user=request.user)
    context: dict[str, object] = {"form": form, "query": _query_without_page(request)}
    if form.is_bound and not form.is_valid():
        context["error"] = "筛选条件有误：" + form_error_text(form)
        return render(request, "ledgers/mine.html", context, status=HTTP_BAD_REQUEST)
    filters = form.filters() if form.is_bound else selectors.MyFilters()
    seats = selectors.my_match_seat_list(user=request.user, filters=filters)
    page = Paginator(seats, MATCHES_PER_PAGE).get_page(request.GET.get("page"))
    stats = selectors.my_stats(user=request.user, filters=filters)
    context.update({
        "matches": selectors.my_match_rows(user=request.user, seats=page.object_list),
        "page_obj": page,
        "stats": stats,
        "chart": cumulative_chart_svg(stats.series),
    })
    return render(request, "ledgers/mine.html", context)


@login_required
def hand_detail(request: AuthenticatedHttpRequest, hand_id: int) -> HttpResponse:
    """A settled hand: the four final hands as tiles, each seat's subtotals by kind, the
    lines in words (their rulings in a small detail), links to its replay and match."""
    share = request.GET.get("share", "")
    hand = selectors.hand_get_for_viewer(hand_id=hand_id, user=request.user, share=share)
    access = selectors.ledger_access(club_id=hand.match.club_id, user=request.user)
    try:
        selectors.match_get_for_viewer(access=access, match_id=hand.match_id)
    except ClubNotFound:
        can_see_match = False
    else:
        can_see_match = True
    return render(request, "ledgers/hand.html", {
        "hand": hand, "share": share, "can_see_match": can_see_match,
        **selectors.hand_view(hand),
    })


@login_required
def hand_replay_page(request: AuthenticatedHttpRequest, hand_id: int) -> HttpResponse:
    """战绩回放: step through a settled hand; the frames are embedded as JSON."""
    share = request.GET.get("share", "")
    hand = selectors.hand_get_for_viewer(hand_id=hand_id, user=request.user, share=share)
    share_url = request.build_absolute_uri(
        reverse("ledgers:replay", args=[hand.pk]) + f"?share={replay_share_token(hand)}"
    )
    return render(request, "ledgers/replay.html", {
        "hand": hand, "replay": hand_replay(hand, user=request.user), "share_url": share_url,
        "share": share,
    })


@login_required
def hand_record_download(request: AuthenticatedHttpRequest, hand_id: int) -> HttpResponse:
    """The hand's game record (majiang-record/1) as a JSON download."""
    share = request.GET.get("share", "")
    hand = selectors.hand_get_for_viewer(hand_id=hand_id, user=request.user, share=share)
    response = HttpResponse(dumps(hand.record or {}), content_type="application/json")
    name = f"match{hand.match_id}-hand{hand.number}.json"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@login_required
def club_ledger(request: AuthenticatedHttpRequest, club_id: int) -> HttpResponse:
    """The club ledger: filters, per-member totals, chart and daily summary (over all the
    filtered rows), and the rows themselves, newest first, 100 a page (``?page=N``)."""
    access = selectors.ledger_access(club_id=club_id, user=request.user)
    form = LedgerFilterForm(request.GET or None, club=access.club, sees_all=access.sees_all)
    if form.is_bound and not form.is_valid():
        return render(request, "ledgers/club.html", {
            "club": access.club, "access": access, "form": form,
            "error": "筛选条件有误：" + form_error_text(form),
        }, status=HTTP_BAD_REQUEST)
    filters = form.filters() if request.GET else selectors.LedgerFilters()
    entries = selectors.ledger_entry_list(access=access, filters=filters)
    series = selectors.cumulative_series(access=access, filters=filters)
    page = Paginator(entries.reverse(), ENTRIES_PER_PAGE).get_page(request.GET.get("page"))
    return render(request, "ledgers/club.html", {
        "club": access.club,
        "access": access,
        "form": form,
        "query": _query_without_page(request),
        "totals": selectors.member_totals(access=access, filters=filters),
        "daily": selectors.daily_summary(access=access, filters=filters),
        "chart": cumulative_chart_svg(series),
        "entries": page.object_list,
        "page_obj": page,
        "entry_count": page.paginator.count,
        "matches": selectors.club_match_rows(
            selectors.club_match_list(access=access, filters=filters)[:RECENT_MATCHES]
        ),
        "last_checkout": selectors.checkout_last(club=access.club) if access.sees_all else None,
    })


@login_required
def club_chain(request: AuthenticatedHttpRequest, club_id: int) -> HttpResponse:
    """The club's chain head and its links from ``?since=N`` on (JSON), for the member's
    browser to check that the head extends the one it kept (``static/ledgers/chain.js``)."""
    access = selectors.ledger_access(club_id=club_id, user=request.user)
    since = request.GET.get("since", "0")
    if not since.isdecimal():
        return HttpResponseBadRequest("since 应为非负整数")
    chain = selectors.ledger_chain_links(access=access, since=int(since))
    return JsonResponse({"seq": chain.seq, "last": chain.last, "links": chain.links})


@login_required
def club_ledger_csv(request: AuthenticatedHttpRequest, club_id: int) -> HttpResponseBase:
    """The filtered club ledger as CSV (a bad filter: 400 with the Chinese error)."""
    access = selectors.ledger_access(club_id=club_id, user=request.user)
    form = LedgerFilterForm(request.GET or None, club=access.club, sees_all=access.sees_all)
    if form.is_bound and not form.is_valid():
        return HttpResponseBadRequest(
            "筛选条件有误：" + form_error_text(form), content_type="text/plain; charset=utf-8"
        )
    filters = form.filters() if request.GET else selectors.LedgerFilters()
    entries = selectors.ledger_entry_list(access=access, filters=filters)
    response = StreamingHttpResponse(ledger_csv(entries.iterator()), content_type="text/csv")
    response["Content-Disposition"] = f'attachment; filename="club{club_id}-ledger.csv"'
    return response


@login_required
def club_adjust(request: AuthenticatedHttpRequest, club_id: int) -> HttpResponse:
    """调账 (owner only): pick the match, then payer, payee, points and reason by name;
    preview what the entry will do; confirm to write it (once, however often submitted)."""
    access = selectors.ledger_access(club_id=club_id, user=request.user)
    if not access.is_owner:
        raise ActionForbidden("只有圈主可以调账")
    source = request.POST if request.method == "POST" else request.GET
    picker = AdjustmentMatchForm(
        source if "match" in source else None,
        matches=selectors.adjust_match_choices(club=access.club),
    )
    context: dict[str, object] = {"club": access.club, "picker": picker}
    if not picker.is_valid():
        context["error"] = form_error_text(picker) if picker.is_bound else ""
        return render(request, "ledgers/adjust.html", context)
    match = selectors.match_get_for_viewer(access=access, match_id=picker.cleaned_data["match"])
    choices = {
        "players": selectors.match_players(match=match),
        "lines": selectors.match_line_choices(match=match),
    }
    context.update({"match": match, "match_label": picker.labels[match.pk]})
    form = AdjustmentForm(request.POST if request.method == "POST" else None, **choices)
    context["form"] = form
    action = request.POST.get("action", "")
    if not form.is_bound or action == "edit" or not form.is_valid():
        return render(request, "ledgers/adjust.html", context)
    data = form.cleaned_data
    fields = {
        "club": access.club, "actor": request.user, "match_id": match.pk,
        "payer_id": data["payer"], "payee_id": data["payee"], "points": data["points"],
        "reason": data["reason"], "corrects_id": data["corrects"],
    }
    try:
        if action == "confirm":
            services.ledger_adjustment_create(**fields, request_key=data["key"])
        else:
            context["plan"] = services.ledger_adjustment_plan(**fields)
    except InvalidInputError as error:
        for name, texts in error.message_dict.items():
            form.add_error(name if name in form.fields else None, texts)
        return render(request, "ledgers/adjust.html", context)
    if action == "confirm":
        messages.success(request, "调账已记录")
        return redirect("ledgers:match", club_id=access.club.pk, match_id=match.pk)
    context["confirm"] = AdjustmentForm(
        initial={**data, "key": data["key"] or secrets.token_urlsafe(16)}, **choices
    )
    return render(request, "ledgers/adjust.html", context)


@login_required
def club_match_table(
    request: AuthenticatedHttpRequest, club_id: int, match_id: int
) -> HttpResponse:
    """One match as a table: its hands as rows, its players as columns, and the totals."""
    access = selectors.ledger_access(club_id=club_id, user=request.user)
    match = selectors.match_get_for_viewer(access=access, match_id=match_id)
    return render(request, "ledgers/match.html", {
        "club": access.club, "access": access, **selectors.match_table(match=match),
    })


@login_required
def club_matches(request: AuthenticatedHttpRequest, club_id: int) -> HttpResponse:
    """The club's matches (filtered as the club ledger), newest first, 20 a page."""
    access = selectors.ledger_access(club_id=club_id, user=request.user)
    form = LedgerFilterForm(request.GET or None, club=access.club, sees_all=access.sees_all)
    context: dict[str, object] = {"club": access.club, "access": access, "form": form}
    if form.is_bound and not form.is_valid():
        context["error"] = "筛选条件有误：" + form_error_text(form)
        return render(request, "ledgers/matches.html", context, status=HTTP_BAD_REQUEST)
    filters = form.filters() if request.GET else selectors.LedgerFilters()
    matches = selectors.club_match_list(access=access, filters=filters)
    page = Paginator(matches, MATCHES_PER_PAGE).get_page(request.GET.get("page"))
    context.update({
        "query": _query_without_page(request),
        "matches": selectors.club_match_rows(page.object_list), "page_obj": page,
    })
    return render(request, "ledgers/matches.html", context)


@login_required
def club_checkout(request: AuthenticatedHttpRequest, club_id: int) -> HttpResponse:
    """结账: each member's balance over a period (today by default) and who pays whom;
    the owner marks it paid (POST), which starts the next 结账 after it."""
    access = selectors.ledger_access(club_id=club_id, user=request.user)
    if request.method == "POST":
        return _checkout_mark(request, access)
    today = timezone.localdate()
    form = CheckoutPeriodForm(request.GET or {"start": today, "end": today})
    view = None
    if form.is_valid():
        view = selectors.checkout_compute(
            access=access, start=form.cleaned_data["start"], end=form.cleaned_data["end"]
        )
    elif not access.sees_all:
        raise ClubNotFound("只有圈主、管理员可以查看结账")
    mark = None
    if view is not None and access.is_owner and not view.settled:
        mark = CheckoutMarkForm(initial={
            "start": view.start, "end": view.end, "digest": view.digest,
            "previous": view.last.pk if view.last is not None else None,
        })
    return render(request, "ledgers/checkout.html", {
        "club": access.club, "access": access, "form": form,
        "error": form_error_text(form) if form.is_bound and not form.is_valid() else "",
        "view": view, "mark": mark, "exact_limit": EXACT_LIMIT,
        "exact": view is not None and sum(1 for r in view.rows if r.total) <= EXACT_LIMIT,
        "history": selectors.checkout_history(club=access.club),
    })


def _checkout_mark(
    request: AuthenticatedHttpRequest, access: selectors.LedgerAccess
) -> HttpResponse:
    form = CheckoutMarkForm(request.POST)
    url = reverse("ledgers:checkout", args=[access.club.pk])
    if not form.is_valid():
        messages.error(request, "结账未记录：" + form_error_text(form))
        return redirect(url)
    data = form.cleaned_data
    url += "?" + urlencode({"start": data["start"].isoformat(), "end": data["end"].isoformat()})
    try:
        services.ledger_checkout_create(
            club=access.club, actor=request.user, start=data["start"], end=data["end"],
            previous_id=data["previous"], digest=data["digest"],
        )
    except InvalidInputError as error:
        messages.error(request, "结账未记录：" + "；".join(
            m for ms in error.message_dict.values() for m in ms
        ))
    else:
        messages.success(request, "已标记结清，下次结账从此开始")
    return redirect(url)
