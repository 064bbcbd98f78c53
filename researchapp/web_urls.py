from django.urls import path

from researchapp import views

urlpatterns = [
    path("", views.task_list, name="task_list"),
    path("tasks/new/", views.task_submit, name="task_submit"),
    path("tasks/<int:task_id>/", views.task_detail, name="task_detail"),
    path("tasks/<int:task_id>/progress/", views.task_progress, name="task_progress"),
    path("tasks/<int:task_id>/cancel/", views.task_cancel, name="task_cancel"),
    path("tasks/<int:task_id>/resume/", views.task_resume, name="task_resume"),
    path(
        "tasks/<int:task_id>/export.md",
        views.export_report,
        {"export_format": "markdown"},
        name="export_markdown",
    ),
    path("tasks/<int:task_id>/export.pdf", views.export_report, {"export_format": "pdf"}, name="export_pdf"),
    path(
        "tasks/<int:task_id>/export.json", views.export_report, {"export_format": "json"}, name="export_json"
    ),
    path("evidence/<int:evidence_id>/", views.evidence_context, name="evidence_context"),
]
