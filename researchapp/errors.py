"""The 500 handler: a database too busy to answer in time gets a page that says "try again", not a 500.

A long write holds SQLite's one write lock (an import, before it committed in batches); PostgreSQL
gives up on a lock after ``DB_LOCK_TIMEOUT_MS``. A login or a form then fails after waiting, and the
person should hear that nothing is broken and that trying again works.
"""

from __future__ import annotations

import sys

from django.http import HttpRequest, HttpResponse
from django.template import loader
from django.views import defaults

from researchapp.services.leases import transient_database_error

RETRY_AFTER_SECONDS = 10


def server_error(request: HttpRequest) -> HttpResponse:
    error = sys.exc_info()[1]
    if error is None or not transient_database_error(error):
        return defaults.server_error(request)
    # Rendered without the request, as Django's own 500 page is: its context would ask the database.
    page = loader.get_template("busy.html").render({"retry_after": RETRY_AFTER_SECONDS})
    response = HttpResponse(page, status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response
