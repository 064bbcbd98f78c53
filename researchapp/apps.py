from django.apps import AppConfig


class ResearchConfig(AppConfig):
    name = "researchapp"
    verbose_name = "Research"
