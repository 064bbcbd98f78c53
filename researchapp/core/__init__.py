"""Pure values every layer may use: the ledger's vocabulary, URL normalisation, hashing.

Nothing here imports Django or any other part of the project, so models, pipeline stages and
providers can all depend on it without depending on each other.
"""
