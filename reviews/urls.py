from django.urls import path

from reviews import views

urlpatterns = [
    path("", views.review_queue, name="review_queue"),
    path("tasks/<int:task_id>/audit/", views.task_audit, name="task_audit"),
]
