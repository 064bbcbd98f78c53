from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.http import HttpRequest

from researchapp.permissions import is_analyst


def desk(request: HttpRequest) -> dict:
    # A request refused before AuthenticationMiddleware ran (a Host outside ALLOWED_HOSTS gets the
    # 400 page) has no user yet: it is nobody.
    user = getattr(request, "user", None) or AnonymousUser()
    return {
        "desk_profile": settings.PROFILE,
        "desk_engine": settings.RESEARCH["ENGINE"],
        "desk_search": settings.RESEARCH["SEARCH_PROVIDER"],
        "is_analyst": is_analyst(user),
    }
