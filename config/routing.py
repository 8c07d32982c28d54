"""WebSocket URL routes; apps append their consumers here."""

from django.urls import path

from apps.clubs.routing import websocket_urlpatterns as clubs_websocket_urlpatterns
from apps.matches.routing import websocket_urlpatterns as matches_websocket_urlpatterns

from .consumers import PingConsumer

websocket_urlpatterns = [
    path("ws/ping/", PingConsumer.as_asgi()),
    *clubs_websocket_urlpatterns,
    *matches_websocket_urlpatterns,
]
