"""The learned embeddings page (beyond/learned.md): similarity of neighbouring rows."""

from __future__ import annotations

import numpy as np

from sitegen.markdown import number, table
from sitegen.results import result as _result


def learned_row_similarity() -> str:
    """Mean cosine similarity of neighbouring learned rows, trained and untrained."""
    data = _result("extrapolation")
    rows = np.array(next(r for r in data["results"] if r["method"] == "learned")["learned_rows"])
    train = data["training"]["length"]
    unit = rows / np.linalg.norm(rows, axis=1, keepdims=True)
    neighbours = np.sum(unit[1:] * unit[:-1], axis=1)  # row p against row p + 1
    trained = float(neighbours[: train - 1].mean())
    untrained = float(neighbours[train:].mean())
    return table(
        ["rows", "mean cosine similarity of neighbouring rows"],
        [
            [f"0 to {train - 1} (trained)", number(trained, 3)],
            [f"{train} to {rows.shape[0] - 1} (never trained)", number(untrained, 3)],
        ],
        align="lr",
    )
