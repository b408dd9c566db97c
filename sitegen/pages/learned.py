"""The learned embeddings page (beyond/learned.md): similarity of neighbouring rows."""

from __future__ import annotations

import numpy as np

from sitegen.markdown import number, table
from sitegen.results import result as _result


def learned_row_similarity() -> str:
    """Mean cosine similarity of neighbouring learned rows, trained and untrained."""
    data = _result("trained")  # the learned model of the first seed saves its rows
    rows = np.array(next(r for r in data["runs"] if "learned_rows" in r)["learned_rows"])
    train = data["settings"]["train_length"]
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
