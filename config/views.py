"""Project-level views: the home page and the health check."""

from django.http import HttpRequest, JsonResponse


def healthz(request: HttpRequest) -> JsonResponse:
    """Liveness probe for load balancers and the launcher."""
    return JsonResponse({"ok": True})
