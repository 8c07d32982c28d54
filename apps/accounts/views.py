"""Account pages: register, log in and out, change password, profile."""

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.generic import CreateView

from apps.clubs.selectors import club_list_for_user
from apps.core.auth import AuthenticatedHttpRequest

from .forms import BotForm, ProfileForm, RegisterForm, TokenForm
from .models import ApiToken, User
from .ratelimit import client_ip, rate_limit_exceeded
from .services import AccountRefusedError, bot_create, token_create, token_revoke

REGISTER_WINDOW_SECONDS = 3600
"""The window of ``settings.REGISTRATION_RATE_LIMIT`` (registration attempts per client IP)."""
HTTP_TOO_MANY_REQUESTS = 429


class RegisterView(CreateView[User, RegisterForm]):
    """Create an account and log the new player straight in. Attempts are rate-limited
    per client IP."""

    form_class = RegisterForm
    template_name = "accounts/register.html"

    def _next(self) -> str:
        """Where to go once registered: ``next`` if it is a page of this site."""
        target = self.request.POST.get("next") or self.request.GET.get("next") or ""
        if url_has_allowed_host_and_scheme(
            target, allowed_hosts={self.request.get_host()}, require_https=self.request.is_secure()
        ):
            return target
        return ""

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        """The form, and the page to return to (a shared link the player came from)."""
        return {**super().get_context_data(**kwargs), "next": self._next()}

    def get_success_url(self) -> str:
        """The shared link the player came from, else the home page."""
        return self._next() or reverse("home")

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        """Refuse with 429 when this IP has tried to register too often."""
        if rate_limit_exceeded(
            scope="register",
            key=client_ip(request) or "unknown",
            limit=settings.REGISTRATION_RATE_LIMIT,
            window_seconds=REGISTER_WINDOW_SECONDS,
        ):
            return render(
                request,
                "accounts/rate_limited.html",
                {"message": "注册尝试过于频繁，请一小时后再试"},
                status=HTTP_TOO_MANY_REQUESTS,
            )
        return super().post(request, *args, **kwargs)

    def form_valid(self, form: RegisterForm) -> HttpResponse:
        """Save the user, then start their session."""
        response = super().form_valid(form)
        login(self.request, self.object, backend="django.contrib.auth.backends.ModelBackend")
        return response


@login_required
def profile(request: AuthenticatedHttpRequest) -> HttpResponse:
    """The player's profile: display name, avatar colour, email and clubs."""
    form = ProfileForm(request.POST or None, instance=request.user)
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(request, "资料已保存")
        return redirect("profile")
    return render(
        request,
        "accounts/profile.html",
        {"form": form, "clubs": club_list_for_user(user=request.user)},
        status=400 if form.errors else 200,
    )


PASSWORD_RESETS_PER_HOUR = 5
"""忘记密码 requests per client address, and per email address, in an hour."""


class PasswordResetView(auth_views.PasswordResetView):
    """忘记密码, rate-limited per client address and per email address, so a page cannot
    fill someone's mailbox. Both counts grow whether or not the address has an account,
    so the limit tells nothing about who has one."""

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        """Refuse with 429 past :data:`PASSWORD_RESETS_PER_HOUR`."""
        email = str(request.POST.get("email", "")).strip().casefold()
        over = [
            rate_limit_exceeded(scope=scope, key=key, limit=PASSWORD_RESETS_PER_HOUR,
                                window_seconds=3600)
            for scope, key in (("reset-ip", client_ip(request) or "unknown"),
                               ("reset-email", email))
            if key
        ]
        if any(over):
            return render(request, "accounts/rate_limited.html",
                          {"message": "重置密码的请求过于频繁，请一小时后再试"},
                          status=HTTP_TOO_MANY_REQUESTS)
        return super().post(request, *args, **kwargs)


@login_required
def tokens(request: AuthenticatedHttpRequest) -> HttpResponse:
    """设置 → 机器人与 API 令牌: make a bot account, make tokens (shown once), revoke them,
    and see when each was last used."""
    user = request.user
    bot_form = BotForm(prefix="bot")
    token_form = TokenForm(prefix="token", user=user)
    shown_token = ""
    if request.method == "POST":
        action = request.POST.get("action")
        try:
            if action == "bot":
                bot_form = BotForm(request.POST, prefix="bot")
                if bot_form.is_valid():
                    bot = bot_create(owner=user, **bot_form.cleaned_data)
                    messages.success(request, f"已创建机器人账号 {bot}")
                    return redirect("tokens")
            elif action == "token":
                token_form = TokenForm(request.POST, prefix="token", user=user)
                if token_form.is_valid():
                    data = token_form.cleaned_data
                    account = User.objects.get(pk=data["account"])
                    _, shown_token = token_create(actor=user, name=data["name"],
                                                  play=data["play"], account=account)
                    token_form = TokenForm(prefix="token", user=user)
            elif action == "revoke":
                token_revoke(actor=user, token_key=request.POST.get("key", ""))
                messages.success(request, "令牌已撤销")
                return redirect("tokens")
        except AccountRefusedError as refused:
            messages.error(request, refused.message)
    return render(request, "accounts/tokens.html", {
        "bot_form": bot_form, "token_form": token_form, "shown_token": shown_token,
        "bots": user.bots.order_by("pk"),
        "tokens": ApiToken.objects.filter(made_by=user).select_related("user"),
    }, status=400 if bot_form.errors or token_form.errors else 200)
