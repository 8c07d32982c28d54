from django.urls import path

from .views import play

app_name = "table"

urlpatterns = [
    path("rooms/<str:code>/play/", play, name="play"),
]
