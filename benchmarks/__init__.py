"""Measurements of `pe` that write ``benchmarks/results/*.json``.

Run each from the repository root as a module: ``python -m benchmarks.table``.
"""
