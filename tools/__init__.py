"""Commands that measure, check and record the built site and the repository.

Run each from the repository root as a module, e.g. ``python -m tools.readme``;
none is used by the build itself.
"""
