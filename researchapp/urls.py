from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.db import connection
from django.http import HttpRequest, HttpResponse
from django.urls import include, path
from django.views.decorators.http import require_GET

from researchapp.forms import LoginForm


@require_GET
def healthz(request: HttpRequest) -> HttpResponse:
    """For load balancers and docker-compose: the app answers and reaches its database."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return HttpResponse("ok", content_type="text/plain")


urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path(
        "login/",
        auth_views.LoginView.as_view(template_name="login.html", authentication_form=LoginForm),
        name="login",
    ),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("", include("reviews.urls")),
    path("", include("researchapp.web_urls")),
]
