"""Top-level URL configuration."""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from apps.accounts import api as accounts_api
from apps.clubs.views import home

from .views import healthz

admin.site.site_header = admin.site.site_title = "麻将亲友圈 管理后台"

urlpatterns = [
    path("", home, name="home"),
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("accounts/", include("apps.accounts.urls")),
    path("api/auth/csrf/", accounts_api.CsrfView.as_view(), name="api-auth-csrf"),
    path("api/auth/login/", accounts_api.LoginView.as_view(), name="api-auth-login"),
    path("api/auth/logout/", accounts_api.LogoutView.as_view(), name="api-auth-logout"),
    path("api/auth/register/", accounts_api.RegisterView.as_view(), name="api-auth-register"),
    path("api/auth/bots/", accounts_api.BotListView.as_view(), name="api-auth-bots"),
    path("api/auth/tokens/", accounts_api.TokenListView.as_view(), name="api-auth-tokens"),
    path("api/auth/tokens/<str:key>/", accounts_api.TokenDetailView.as_view(),
         name="api-auth-token"),
    path("api/", include("apps.clubs.api.urls")),
    path("", include("apps.clubs.urls")),
    path("", include("apps.table.urls")),
    path("", include("apps.ledgers.urls")),
    path("api/ledgers/", include("apps.ledgers.api.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path(  # Swagger UI from drf-spectacular-sidecar, its setup script a file: the site's CSP
        "api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="api-docs"
    ),
]

handler404 = "apps.core.api_errors.not_found"
