from django.contrib import admin

from researchapp.models import (
    Corpus,
    Event,
    Evidence,
    Finding,
    Plan,
    ReportDraft,
    ResearchTask,
    Source,
    StageJob,
    SubmissionQuota,
)


@admin.register(ResearchTask)
class ResearchTaskAdmin(admin.ModelAdmin):
    list_display = ("id", "question", "owner", "status", "engine", "search_provider", "created_at")
    list_filter = ("status", "engine", "search_provider")
    search_fields = ("question",)
    readonly_fields = ("status",)  # status moves only through the status machine


@admin.register(Source)
class SourceAdmin(admin.ModelAdmin):
    list_display = ("id", "task", "title", "host", "cluster", "density")
    readonly_fields = ("text", "sha256")


@admin.register(Evidence)
class EvidenceAdmin(admin.ModelAdmin):
    list_display = ("id", "task", "source", "start", "end", "score")
    readonly_fields = ("quote", "start", "end", "snapshot_sha256")


@admin.register(StageJob)
class StageJobAdmin(admin.ModelAdmin):
    """The outbox and the leases, for an operator to see what is queued, running or stuck."""

    list_display = (
        "id",
        "task",
        "kind",
        "args",
        "sent_at",
        "started_at",
        "heartbeat_at",
        "runs",
        "finished_at",
    )
    list_filter = ("kind",)
    readonly_fields = [field.name for field in StageJob._meta.fields]


admin.site.register([Corpus, Event, Finding, Plan, ReportDraft])


@admin.register(SubmissionQuota)
class SubmissionQuotaAdmin(admin.ModelAdmin):
    """A person's own submission limits over the site's RESEARCH_QUOTA_* settings (blank: the site's,
    0: no limit): raise them for a heavy user, or stop someone's submissions with a limit of 1."""

    list_display = ("user", "tasks_in_flight", "tasks_per_day", "tokens_per_day", "note")
    search_fields = ("user__username",)
    raw_id_fields = ("user",)
