"""Exercise: a Qwen2.5-VL prompt with a video: its rope delta and the first generated position."""

import pe

qwen25 = pe.grid_rope_presets["qwen2.5-vl"]
frames, height, width = 4, 8, 8  # the video's patch grid: 4 x 4 x 4 tokens after merging
tokens = frames * (height // 2) * (width // 2)
types = [0] * 3 + [2] * tokens + [0] * 2
results = {}
for rule in ("max", "spatial"):
    ids, delta = pe.mrope_position_ids(
        types,
        video_grid_thw=[(frames, height, width)],
        tokens_per_second=qwen25.tokens_per_second,
        second_per_grid=[1.0],
        text_after_vision=rule,
    )
    first = pe.mrope_decode_positions(delta, start=len(types))[0, 0]
    results[rule] = (delta, first)
    print(f"{rule}: largest id {ids.max()}, last two text tokens at {ids[0, -2:].tolist()}")
print(f"temporal ids of the video's frames: {sorted(set(ids[0, 3 : 3 + tokens].tolist()))}")
print(
    f'"max" (the default): delta {results["max"][0]}, first generated token at {results["max"][1]}'
)
delta, first = results["spatial"]
print(f"Answer: {delta} {first}")
