from pathlib import Path

from django.apps import AppConfig
from django.conf import settings

from researchapp import checks  # noqa: F401 — registers the start-up checks


class ResearchConfig(AppConfig):
    name = "researchapp"
    verbose_name = "Research"

    def ready(self) -> None:
        # Importing settings creates nothing; a process that starts Django (migrate, runserver, the
        # Celery worker, the test run) makes the folders its SQLite files and filesystem broker need.
        for folder in embedded_profile_folders():
            folder.mkdir(parents=True, exist_ok=True)


def embedded_profile_folders() -> list[Path]:
    """Folders that must exist before the configured SQLite files or filesystem broker are opened.

    Neither creates its own folder (SQLite creates the file only; kombu's filesystem transport expects
    its queue folder). PostgreSQL and Redis need none, so the production profile gets an empty list.
    The file cache and collectstatic make their folders themselves.
    """
    folders = []
    for database in settings.DATABASES.values():
        if database["ENGINE"].endswith("sqlite3"):
            for name in (database["NAME"], database.get("TEST", {}).get("NAME")):
                if name and str(name) != ":memory:" and not str(name).startswith("file:"):
                    folders.append(Path(name).parent)
    if settings.CELERY_BROKER_URL.startswith("filesystem://"):
        options = settings.CELERY_BROKER_TRANSPORT_OPTIONS
        for key in ("data_folder_in", "data_folder_out", "processed_folder", "control_folder"):
            folders.append(Path(options[key]))
    return folders
