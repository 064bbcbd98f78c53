"""Benchmarks: figures on data nobody on this project wrote. Run all with ``python -m bench.run``."""
