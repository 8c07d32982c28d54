"""The JSON login for API clients: a CSRF token, log in (a session cookie), log out.

A client needs no HTML form: ``GET /api/auth/csrf/`` sets the ``csrftoken`` cookie and
returns its value; ``POST /api/auth/login/`` with it in ``X-CSRFToken`` logs in through the
same django-axes lockout as the login page (by username and address); every later write
sends the session cookie and the (new) token that the login returned.
"""

from __future__ import annotations

from django.contrib.auth import logout
from django.middleware.csrf import get_token
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import exceptions, serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.core.auth import AuthenticatedRequest
from apps.core.authentication import csrf_check

from .models import User
from .services import LoginRefusedError, session_login


class LoginInput(serializers.Serializer[None]):
    username = serializers.CharField(max_length=150, trim_whitespace=False)
    password = serializers.CharField(max_length=4096, trim_whitespace=False)


class UserOutput(serializers.ModelSerializer[User]):
    display_name = serializers.CharField(source="__str__", help_text="其他玩家看到的名字")

    class Meta:
        model = User
        fields = ("id", "username", "display_name")


class LoginOutput(serializers.Serializer[None]):
    user = UserOutput()
    csrf_token = serializers.CharField(
        help_text="登录后的新 CSRF 令牌：之后的写操作放进 X-CSRFToken"
    )


class CsrfOutput(serializers.Serializer[None]):
    csrf_token = serializers.CharField(help_text="放进写操作的 X-CSRFToken 请求头")


class LoginLocked(exceptions.APIException):
    status_code = status.HTTP_429_TOO_MANY_REQUESTS
    default_code = "login_locked"


class CsrfView(APIView):
    permission_classes = (AllowAny,)

    @extend_schema(responses=CsrfOutput, summary="取得 CSRF 令牌（同时设置 csrftoken Cookie）",
                   tags=["auth"])
    def get(self, request: Request) -> Response:
        return Response({"csrf_token": get_token(request._request)})


class LoginView(APIView):
    permission_classes = (AllowAny,)
    authentication_classes = ()  # no session yet: the CSRF token is checked below
    throttle_scope = "login"

    @extend_schema(
        request=LoginInput,
        responses={200: LoginOutput, 400: OpenApiResponse(description="用户名或密码不正确")},
        summary="登录（会话 Cookie）", tags=["auth"],
    )
    def post(self, request: Request) -> Response:
        csrf_check(request)
        data = LoginInput(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            user = session_login(
                request=request._request, username=data.validated_data["username"],
                password=data.validated_data["password"],
            )
        except LoginRefusedError as refused:
            if refused.locked:
                raise LoginLocked(refused.message) from refused
            raise serializers.ValidationError(
                {"non_field_errors": [refused.message]}, code="invalid_credentials"
            ) from refused
        return Response({"user": UserOutput(user).data, "csrf_token": get_token(request._request)})


class LogoutView(APIView):
    @extend_schema(request=None, responses={204: None}, summary="退出登录", tags=["auth"])
    def post(self, request: AuthenticatedRequest) -> Response:
        logout(request._request)
        return Response(status=status.HTTP_204_NO_CONTENT)
