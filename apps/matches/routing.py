"""WebSocket routes of live play (included by ``config.routing``)."""

from django.urls import path

from .consumers import TableConsumer

websocket_urlpatterns = [
    path("ws/rooms/<str:code>/", TableConsumer.as_asgi()),
]
