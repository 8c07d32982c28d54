"""The JSON login for API clients: a CSRF token, log in (a session cookie), log out.

A client needs no HTML form: ``GET /api/auth/csrf/`` sets the ``csrftoken`` cookie and
returns its value; ``POST /api/auth/login/`` with it in ``X-CSRFToken`` logs in through the
same django-axes lockout as the login page (by username and address); every later write
sends the session cookie and the (new) token that the login returned.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.contrib.auth import login, logout
from django.middleware.csrf import get_token
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import exceptions, serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.core.auth import AuthenticatedRequest
from apps.core.authentication import csrf_check

from .forms import BotForm, RegisterForm
from .models import ApiToken, User
from .ratelimit import client_ip, rate_limit_exceeded
from .services import (
    AccountRefusedError,
    LoginRefusedError,
    bot_create,
    session_login,
    token_create,
    token_revoke,
)


class LoginInput(serializers.Serializer[None]):
    username = serializers.CharField(max_length=150, trim_whitespace=False)
    password = serializers.CharField(max_length=4096, trim_whitespace=False)


class UserOutput(serializers.ModelSerializer[User]):
    # Not the model field: its pattern's \w is Unicode in Django and ASCII in a JSON Schema
    # checker, so a 昵称-like username would break the documented response.
    username = serializers.CharField(read_only=True, help_text="登录名")
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


def _form_valid(form: forms.BaseForm) -> None:
    """Raise the form's errors as the API's 400 (the same checks as the pages)."""
    if not form.is_valid():
        raise serializers.ValidationError(
            {field: [str(error) for error in errors] for field, errors in form.errors.items()}
        )


def _refused(refused: AccountRefusedError) -> serializers.ValidationError:
    return serializers.ValidationError({refused.field or "non_field_errors": [refused.message]})


class RegisterInput(serializers.Serializer[None]):
    username = serializers.CharField(max_length=150, trim_whitespace=False)
    display_name = serializers.CharField(max_length=32, required=False, allow_blank=True,
                                         default="", help_text="其他玩家看到的名字")
    password = serializers.CharField(max_length=4096, trim_whitespace=False)


class TooManyRegistrations(exceptions.Throttled):
    default_detail = "注册太频繁，请稍后再试"


class RegisterView(APIView):
    """Register and log in (a session), as the register page does."""

    permission_classes = (AllowAny,)
    authentication_classes = ()

    @extend_schema(request=RegisterInput, responses={201: LoginOutput},
                   summary="注册并登录（会话 Cookie）", tags=["auth"])
    def post(self, request: Request) -> Response:
        csrf_check(request)
        data = RegisterInput(data=request.data)
        data.is_valid(raise_exception=True)
        if rate_limit_exceeded(scope="register", key=client_ip(request._request) or "unknown",
                               limit=settings.REGISTRATION_RATE_LIMIT, window_seconds=3600):
            raise TooManyRegistrations()
        values = data.validated_data
        form = RegisterForm(data={
            "username": values["username"], "display_name": values["display_name"],
            "password1": values["password"], "password2": values["password"],
        })
        _form_valid(form)
        user = form.save()
        login(request._request, user, backend="django.contrib.auth.backends.ModelBackend")
        return Response({"user": UserOutput(user).data, "csrf_token": get_token(request._request)},
                        status=status.HTTP_201_CREATED)


class BotInput(serializers.Serializer[None]):
    username = serializers.CharField(max_length=150)
    display_name = serializers.CharField(max_length=32, required=False, allow_blank=True,
                                         default="")


class BotOutput(UserOutput):
    is_bot = serializers.BooleanField(read_only=True)

    class Meta(UserOutput.Meta):
        fields = ("id", "username", "display_name", "is_bot")  # type: ignore[assignment]


class SessionOnly(exceptions.PermissionDenied):
    default_detail = "机器人账号和令牌只能在登录后（会话）管理，不能用令牌管理"
    default_code = "session_only"


def _session_only(request: Request) -> None:
    if isinstance(request.auth, ApiToken):
        raise SessionOnly()


class BotListView(APIView):
    @extend_schema(responses=BotOutput(many=True), summary="我的机器人账号", tags=["auth"])
    def get(self, request: AuthenticatedRequest) -> Response:
        return Response(BotOutput(request.user.bots.order_by("pk"), many=True).data)

    @extend_schema(request=BotInput, responses={201: BotOutput},
                   summary="创建机器人账号（只能用令牌登录）", tags=["auth"])
    def post(self, request: AuthenticatedRequest) -> Response:
        _session_only(request)
        data = BotInput(data=request.data)
        data.is_valid(raise_exception=True)
        _form_valid(BotForm(data=data.validated_data))
        try:
            bot = bot_create(owner=request.user, **data.validated_data)
        except AccountRefusedError as refused:
            raise _refused(refused) from refused
        return Response(BotOutput(bot).data, status=status.HTTP_201_CREATED)


class TokenInput(serializers.Serializer[None]):
    name = serializers.CharField(max_length=40)
    scopes = serializers.MultipleChoiceField(
        choices=["read", "play"], allow_empty=False,
        help_text="read：只能查看；play：还能下牌和写操作")
    account = serializers.IntegerField(
        required=False, min_value=1, help_text="令牌属于哪个账号：自己（不填）或自己的机器人的 id")


class TokenOutput(serializers.ModelSerializer[ApiToken]):
    id = serializers.CharField(source="token_key", help_text="令牌的开头几位，撤销时用")
    account = UserOutput(source="user")
    scopes = serializers.ListField(child=serializers.CharField())

    class Meta:
        model = ApiToken
        fields = ("id", "name", "account", "scopes", "created", "last_used")


class NewTokenOutput(TokenOutput):
    token = serializers.CharField(help_text="令牌本身，只显示这一次：放进 Authorization: Bearer …")

    class Meta(TokenOutput.Meta):
        fields = (*TokenOutput.Meta.fields, "token")  # type: ignore[assignment]


class TokenListView(APIView):
    @extend_schema(responses=TokenOutput(many=True), summary="我创建的 API 令牌", tags=["auth"])
    def get(self, request: AuthenticatedRequest) -> Response:
        tokens = ApiToken.objects.filter(made_by=request.user).select_related("user")
        return Response(TokenOutput(tokens, many=True).data)

    @extend_schema(request=TokenInput, responses={201: NewTokenOutput},
                   summary="创建 API 令牌（只显示一次）", tags=["auth"])
    def post(self, request: AuthenticatedRequest) -> Response:
        _session_only(request)
        data = TokenInput(data=request.data)
        data.is_valid(raise_exception=True)
        values: dict[str, Any] = data.validated_data
        account = None
        if "account" in values:
            account = User.objects.filter(pk=values["account"]).first()
            if account is None:
                raise serializers.ValidationError({"account": ["没有这个账号"]})
        try:
            token, text = token_create(actor=request.user, name=values["name"],
                                       play="play" in values["scopes"], account=account)
        except AccountRefusedError as refused:
            raise _refused(refused) from refused
        token.token = text
        return Response(NewTokenOutput(token).data, status=status.HTTP_201_CREATED)


class TokenDetailView(APIView):
    @extend_schema(responses={204: None}, summary="撤销 API 令牌", tags=["auth"])
    def delete(self, request: AuthenticatedRequest, key: str) -> Response:
        _session_only(request)
        try:
            token_revoke(actor=request.user, token_key=key)
        except AccountRefusedError as refused:
            raise exceptions.NotFound(refused.message) from refused
        return Response(status=status.HTTP_204_NO_CONTENT)
