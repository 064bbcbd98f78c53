"""The demo: an invented corpus and a question it answers with one conflict and one gap.

Every document in ``demo_corpus/`` is INVENTED: the companies, products, figures and web sites (all
under the reserved ``.example`` domain) do not exist, and the UI says so. The documents are arranged
so that the demo question yields a conflict (the Kestrel battery's efficiency: 92 percent claimed by
its maker, 85 percent measured by a lab), a [证据不足] item (the question asks about the batteries'
fire safety, which no document mentions; the dimensions the documents do discuss, cost, performance
and adoption, are what the plan compares them on), and a syndicated reprint that joins its
original's independence cluster.
"""

from django.conf import settings

DEMO_CORPUS_DIR = settings.BASE_DIR / "researchapp" / "demo_corpus"
DEMO_QUESTION = (
    "Compare the Kestrel sodium-ion home battery and the Osprey LFP home battery, including their fire safety"
)
# The demo's accounts (password "demo") and their roles; ``auth.DeskBackend`` refuses them outside the
# embedded profile.
DEMO_ACCOUNTS = {"researcher": ("researcher",), "analyst": ("researcher", "analyst")}
