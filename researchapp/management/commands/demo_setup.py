from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand, CommandError

from researchapp.demo import DEMO_ACCOUNTS
from researchapp.demo import DEMO_CORPUS_DIR as DEMO_CORPUS
from researchapp.permissions import ANALYST, RESEARCHER
from researchapp.services.corpus import corpus_import

DEMO_PASSWORD = "demo"


class Command(BaseCommand):
    help = "Create the roles, the demo accounts (embedded profile only) and load the demo corpus."

    def handle(self, *args, **options):
        if settings.PROFILE != "embedded":
            raise CommandError("demo accounts exist only in the embedded profile; refusing.")
        groups = {name: Group.objects.get_or_create(name=name)[0] for name in (RESEARCHER, ANALYST)}
        User = get_user_model()
        for username, roles in DEMO_ACCOUNTS.items():
            user, created = User.objects.get_or_create(username=username)
            if created:
                user.set_password(DEMO_PASSWORD)
                user.email = f"{username}@localhost"  # notifications show on the worker's console
                user.save()
            user.groups.add(*(groups[r] for r in roles))
        report = corpus_import(
            path=DEMO_CORPUS,
            name=settings.RESEARCH["DEFAULT_CORPUS"],
            invented=True,
            description="Invented documents written for the demo. Not real facts.",
        )
        for _, reason in report.skipped:
            self.stderr.write(f"skipped {reason}")
        self.stdout.write(f"demo corpus: {report.imported} imported, {report.unchanged} unchanged")
        self.stdout.write("accounts: researcher / demo, analyst / demo")
