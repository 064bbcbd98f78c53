"""The review side's reads, one module per page or desk: what views (and the forms, the signals and the
navigation's counts) need, never a write (``.importlinter``'s "Reads and exports never import a write").

- ``plans``: the plan gate (the plan under review, its versions and what changed between them)
- ``findings``: the evidence gate (conflicts with both sides in context, [证据不足] items with what was
  tried, stored sources to select evidence from); ``passages`` cuts a quote's paragraphs (pure text)
- ``hypotheses``: the hypotheses at the evidence gate
- ``reports``: the report gate (the draft as the report model, the sentences changed since sent back)
- ``queues``: the review queues, their filters, claims and cached counts
- ``audit``: the audit trail, per task and across tasks
"""
