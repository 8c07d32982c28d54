"""WebSocket routes of the clubs app (included by ``config.routing``)."""

from django.urls import path

from .consumers import ClubLobbyConsumer, LobbyConsumer

websocket_urlpatterns = [
    path("ws/rooms/<str:code>/lobby/", LobbyConsumer.as_asgi()),
    path("ws/clubs/<str:club_id>/lobby/", ClubLobbyConsumer.as_asgi()),
]
