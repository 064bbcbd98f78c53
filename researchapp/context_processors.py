from django.conf import settings
from django.http import HttpRequest

from researchapp.permissions import is_analyst


def desk(request: HttpRequest) -> dict:
    return {
        "desk_profile": settings.PROFILE,
        "desk_engine": settings.RESEARCH["ENGINE"],
        "desk_search": settings.RESEARCH["SEARCH_PROVIDER"],
        "is_analyst": is_analyst(request.user),
    }
