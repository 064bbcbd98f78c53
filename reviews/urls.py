from django.urls import path

from reviews import views

urlpatterns = [
    path("reviews/", views.review_queue, name="review_queue"),
    path("reviews/tasks/<int:task_id>/audit/", views.task_audit, name="task_audit"),
    path("tasks/<int:task_id>/plan/", views.plan_review, name="plan_review"),
    path("tasks/<int:task_id>/evidence/", views.evidence_review, name="evidence_review"),
    path("tasks/<int:task_id>/report/", views.report_view, name="report_view"),
]
