"""URLs of the ledger API, mounted under ``/api/ledgers/``."""

from django.urls import path

from . import views as v

urlpatterns = [
    path("mine/", v.MyMatchesView.as_view(), name="api-ledger-mine"),
    path("clubs/<dbid:club_id>/entries/", v.ClubEntriesView.as_view(), name="api-ledger-entries"),
    path(
        "clubs/<dbid:club_id>/entries/<dbid:entry_id>/",
        v.ClubEntryView.as_view(),
        name="api-ledger-entry",
    ),
    path("clubs/<dbid:club_id>/summary/", v.ClubSummaryView.as_view(), name="api-ledger-summary"),
    path("clubs/<dbid:club_id>/export.csv", v.ClubExportView.as_view(), name="api-ledger-csv"),
    path(
        "clubs/<dbid:club_id>/adjustments/",
        v.ClubAdjustmentView.as_view(),
        name="api-ledger-adjustments",
    ),
    path("matches/<dbid:match_id>/hands/", v.MatchHandsView.as_view(),
         name="api-ledger-match-hands"),
    path("hands/<dbid:hand_id>/", v.HandView.as_view(), name="api-ledger-hand"),
    path("hands/<dbid:hand_id>/replay/", v.HandReplayView.as_view(), name="api-ledger-replay"),
    path("hands/<dbid:hand_id>/record/", v.HandRecordView.as_view(), name="api-ledger-record"),
]
