from django.contrib.auth.models import AnonymousUser
from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from researchapp.permissions import is_analyst
from reviews.selectors.queues import queue_counts_for


def review_desk(request: HttpRequest) -> dict:
    """The navigation's counts of waiting items, for analysts; asked only when a page shows them (a
    request refused before it has a user, such as a Host outside ALLOWED_HOSTS, has none)."""
    if not is_analyst(getattr(request, "user", None) or AnonymousUser()):
        return {"queue_counts": None}
    return {"queue_counts": SimpleLazyObject(lambda: queue_counts_for(request))}
