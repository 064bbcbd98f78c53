"""The review side's pages: the analysts' queue and a task's audit trail."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from researchapp import selectors
from researchapp.permissions import is_analyst
from reviews.selectors import audit_trail, review_queue_for


@login_required
@require_GET
def review_queue(request: HttpRequest) -> HttpResponse:
    if not is_analyst(request.user):
        raise PermissionDenied("The review queue is for analysts.")
    return render(request, "review_queue.html", {"queue": review_queue_for(request.user)})


@login_required
@require_GET
def task_audit(request: HttpRequest, task_id: int) -> HttpResponse:
    task = selectors.visible_task(task_id, request.user)
    return render(request, "audit.html", {"task": task, "entries": audit_trail(task)})
