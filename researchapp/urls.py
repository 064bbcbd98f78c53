from django.conf import settings
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.db import connection
from django.http import HttpRequest, HttpResponse
from django.urls import include, path
from django.views.decorators.http import require_GET
from django.views.generic import RedirectView


@require_GET
def healthz(request: HttpRequest) -> HttpResponse:
    """For load balancers and docker-compose: the app answers and reaches its database."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return HttpResponse("ok", content_type="text/plain")


# A database too busy to answer in time is "try again" (503), not a server error.
handler500 = "researchapp.errors.server_error"

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    # Pages name static/favicon.svg; this answers the browsers and tools that ask for /favicon.ico anyway.
    path(
        "favicon.ico",
        RedirectView.as_view(url=f"/{settings.STATIC_URL.lstrip('/')}favicon.svg", permanent=True),
    ),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),  # login/ is the reviews app's
    path("admin/", admin.site.urls),
    path("", include("reviews.urls")),
    path("", include("researchapp.web_urls")),
]
