from django.urls import path

from reviews import desk_views, evidence_views, hypothesis_views, views

urlpatterns = [
    path("login/", desk_views.DeskLoginView.as_view(), name="login"),
    path("reviews/", desk_views.review_queue, name="review_queue"),
    path("reviews/claim/", desk_views.claim, name="review_claim"),
    path("reviews/audit/", desk_views.desk_audit, name="desk_audit"),
    path("reviews/audit.csv", desk_views.desk_audit_csv, name="desk_audit_csv"),
    path("reviews/tasks/<int:task_id>/audit/", desk_views.task_audit, name="task_audit"),
    path("reviews/tasks/<int:task_id>/audit.csv", desk_views.task_audit_csv, name="task_audit_csv"),
    path("preferences/", desk_views.preferences_page, name="preferences"),
    path("preferences/language/", desk_views.language_switch, name="language_switch"),
    path("tasks/<int:task_id>/plan/", views.plan_review, name="plan_review"),
    path("tasks/<int:task_id>/plan/queries/", views.plan_queries, name="plan_queries"),
    path("tasks/<int:task_id>/evidence/", evidence_views.evidence_review, name="evidence_review"),
    path("tasks/<int:task_id>/evidence/source/", evidence_views.evidence_source, name="evidence_source"),
    path("tasks/<int:task_id>/report/", views.report_view, name="report_view"),
    path("tasks/<int:task_id>/hypotheses/", hypothesis_views.hypotheses_review, name="hypotheses_review"),
]
