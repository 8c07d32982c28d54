"""URLs of the ledger pages, mounted at the site root."""

from django.urls import path

from . import views

app_name = "ledgers"

urlpatterns = [
    path("ledgers/mine/", views.my_results, name="mine"),
    path("ledgers/hands/<dbid:hand_id>/", views.hand_detail, name="hand"),
    path("ledgers/hands/<dbid:hand_id>/replay/", views.hand_replay_page, name="replay"),
    path("ledgers/hands/<dbid:hand_id>/record.json", views.hand_record_download, name="record"),
    path("ledgers/clubs/<dbid:club_id>/", views.club_ledger, name="club"),
    path("ledgers/clubs/<dbid:club_id>/chain.json", views.club_chain, name="chain"),
    path("ledgers/clubs/<dbid:club_id>/export.csv", views.club_ledger_csv, name="club-csv"),
    path("ledgers/clubs/<dbid:club_id>/adjust/", views.club_adjust, name="club-adjust"),
    path("ledgers/clubs/<dbid:club_id>/checkout/", views.club_checkout, name="checkout"),
    path("ledgers/clubs/<dbid:club_id>/matches/", views.club_matches, name="club-matches"),
    path(
        "ledgers/clubs/<dbid:club_id>/matches/<dbid:match_id>/", views.club_match_table,
        name="match",
    ),
]
