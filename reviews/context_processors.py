from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from researchapp.permissions import is_analyst
from reviews.selectors.queues import queue_counts_for


def review_desk(request: HttpRequest) -> dict:
    """The navigation's counts of waiting items, for analysts; asked only when a page shows them."""
    if not is_analyst(request.user):
        return {"queue_counts": None}
    return {"queue_counts": SimpleLazyObject(lambda: queue_counts_for(request))}
