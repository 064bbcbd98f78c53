from __future__ import annotations

from django.db import models

from researchapp.core.enums import CORPUS_EXTRACTION
from researchapp.core.hashing import sha256_text
from researchapp.core.urls import normalize_url, url_host


class Corpus(models.Model):
    """A named collection of local documents searched by the ``local`` provider."""

    name = models.CharField(max_length=200, unique=True)
    description = models.TextField(blank=True)
    invented = models.BooleanField(default=False, help_text="Written for the demo; not real facts.")
    created_at = models.DateTimeField(auto_now_add=True)
    # Kept by the import in each batch's transaction: BM25's size and average length, read without a count.
    document_count = models.PositiveIntegerField(default=0)
    token_count = models.PositiveBigIntegerField(default=0)

    class Meta:
        verbose_name_plural = "corpora"

    def __str__(self) -> str:
        return self.name


class CorpusDocument(models.Model):
    corpus = models.ForeignKey(Corpus, on_delete=models.CASCADE, related_name="documents")
    url = models.CharField(max_length=2000)
    title = models.CharField(max_length=500, blank=True)
    text = models.TextField()
    published = models.DateField(null=True, blank=True)
    sha256 = models.CharField(max_length=64)
    imported_at = models.DateTimeField(auto_now_add=True)
    # The title and text as the pipeline's tokenizer reads them (English words folded, Chinese words
    # segmented by rjieba), one space between terms: what the database's full-text index holds
    # (PostgreSQL: the generated ``search_vector`` column and its GIN index; SQLite: the FTS5 table
    # ``researchapp_corpusdocument_fts``, both made by migration 0024 and kept by the database itself).
    search_text = models.TextField(blank=True, default="")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["corpus", "url"], name="corpusdocument_unique_url")]

    def __str__(self) -> str:
        return self.title or self.url

    def save(self, *args, **kwargs):
        self.sha256 = sha256_text(self.text)
        super().save(*args, **kwargs)


class CorpusTerm(models.Model):
    """A corpus's term and how many documents hold it (and how often): BM25's IDF, a translated
    query's word forms and the corpus's common terms, read per term instead of from an index in memory."""

    corpus = models.ForeignKey(Corpus, on_delete=models.CASCADE, related_name="terms")
    term = models.CharField(max_length=100)
    # Signed: a batch's upsert carries what it takes away as negative counts (a changed document's old terms).
    documents = models.IntegerField(default=0)
    occurrences = models.BigIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["corpus", "term"], name="corpusterm_unique_term")]

    def __str__(self) -> str:
        return self.term


class Source(models.Model):
    """An opened page and the exact text snapshot every quote of it points into.

    The snapshot never changes after it is stored: evidence offsets depend on it.
    """

    task = models.ForeignKey("researchapp.ResearchTask", on_delete=models.CASCADE, related_name="sources")
    url = models.CharField(max_length=2000)
    normalized_url = models.CharField(max_length=2000)
    final_url = models.CharField(max_length=2000, blank=True)
    host = models.CharField(max_length=255, blank=True)
    title = models.CharField(max_length=500, blank=True)
    published = models.DateField(null=True, blank=True)
    fetched_at = models.DateTimeField(auto_now_add=True)
    http_status = models.PositiveSmallIntegerField(null=True, blank=True)
    content_type = models.CharField(max_length=200, blank=True)
    extraction = models.CharField(max_length=32, blank=True)
    provider = models.CharField(max_length=32, blank=True)
    text = models.TextField()
    sha256 = models.CharField(max_length=64)
    density = models.FloatField(default=1.0)
    cluster = models.CharField(max_length=64, blank=True)
    is_primary = models.BooleanField(default=True)
    round = models.PositiveSmallIntegerField(default=1)
    # A paper's reference (academic search): empty for a web page.
    doi = models.CharField(max_length=255, blank=True, help_text="Bare and lower-cased, e.g. 10.1000/xyz.")
    authors = models.JSONField(default=list, blank=True)
    venue = models.CharField(max_length=500, blank=True)
    year = models.PositiveSmallIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["task", "normalized_url"], name="source_unique_url_per_task"),
            models.CheckConstraint(
                condition=models.Q(density__gte=0, density__lte=1), name="source_density_0_1"
            ),
        ]

    def __str__(self) -> str:
        return self.title or self.url

    def save(self, *args, **kwargs):
        if self.pk and type(self).objects.filter(pk=self.pk).exclude(sha256=sha256_text(self.text)).exists():
            raise ValueError(f"source {self.pk}: a stored snapshot never changes")
        self.normalized_url = normalize_url(self.url)
        self.host = self.host or url_host(self.url)
        self.sha256 = sha256_text(self.text)
        super().save(*args, **kwargs)

    @property
    def is_corpus_document(self) -> bool:
        """A local corpus's document: its URL is what the corpus file claims, never opened."""
        return self.extraction == CORPUS_EXTRACTION

    @property
    def link_url(self) -> str:
        """The URL a link may point at: a page that was fetched from it; "" for a corpus document,
        whose URL anyone writing the corpus could have made up (169.254.169.254 included)."""
        return "" if self.is_corpus_document else self.url
