"""T5's relative-position buckets: exact near the query, logarithmic farther away."""

from __future__ import annotations

import matplotlib.pyplot as plt
import torch
from _figstyle import Theme, save_variants
from matplotlib.figure import Figure

from pe.nn.functional import relative_position_bucket

NUM_BUCKETS = 32
MAX_DISTANCE = 128
SPAN = 200


def draw(theme: Theme) -> Figure:
    offsets = torch.arange(-SPAN, SPAN + 1)
    figure, axes = plt.subplots(figsize=(7.2, 3.6), layout="constrained")
    for bidirectional, colour, label in (
        (True, theme.series[0], "bidirectional (encoder)"),
        (False, theme.series[1], "causal (decoder)"),
    ):
        buckets = relative_position_bucket(
            offsets, bidirectional=bidirectional, num_buckets=NUM_BUCKETS, max_distance=MAX_DISTANCE
        )
        axes.step(offsets.numpy(), buckets.numpy(), where="mid", color=colour, lw=1.5, label=label)
    for edge in (-MAX_DISTANCE, MAX_DISTANCE):
        axes.axvline(edge, color=theme.muted, ls=":", lw=1)
    axes.set_xlabel("key position − query position")
    axes.set_ylabel("bucket")
    axes.set_title(f"{NUM_BUCKETS} buckets, max_distance = {MAX_DISTANCE}")
    axes.grid(True, axis="y")
    if theme.phone:  # below the axes: the narrow canvas has no room beside the steps
        figure.legend(loc="outside lower center", ncols=1)
    else:
        axes.legend(loc="center right")
    return figure


ALT = (
    f"Bucket index against relative position from -{SPAN} to {SPAN}, for T5's scheme with "
    f"{NUM_BUCKETS} buckets and max_distance {MAX_DISTANCE}. Near zero each offset has its own "
    "bucket; farther out the steps widen logarithmically, and beyond the dotted lines at "
    f"plus and minus {MAX_DISTANCE} all offsets share the last bucket of their side. The "
    "causal curve uses all buckets for keys before the query and puts every later key in "
    "bucket 0."
)

if __name__ == "__main__":
    save_variants(draw, "t5_buckets", ALT)
