from django.urls import path

from .views import play, take_seat
from .views_result import result

app_name = "table"

urlpatterns = [
    path("rooms/<str:code>/play/", play, name="play"),
    path("rooms/<str:code>/result/<int:match_id>/", result, name="result"),
    path("rooms/<str:code>/take/<int:seat>/", take_seat, name="take-seat"),
]
