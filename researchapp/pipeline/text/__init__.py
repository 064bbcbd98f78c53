"""Text tools the stages share: tokens, BM25, sentences, quantities, question reading, relevance.

Pure Python over plain strings: no Django, no providers, no stage imports.
"""
