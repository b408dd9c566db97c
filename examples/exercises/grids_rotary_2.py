"""Exercise: a Qwen2.5-VL prompt with a video: its rope delta and the first generated position."""

import pe

qwen25 = pe.grid_rope_presets["qwen2.5-vl"]
frames, height, width = 4, 8, 8  # the video's patch grid: 4 x 4 x 4 tokens after merging
tokens = frames * (height // 2) * (width // 2)
types = [0] * 3 + [2] * tokens + [0] * 2
ids, delta = pe.mrope_position_ids(
    types,
    video_grid_thw=[(frames, height, width)],
    tokens_per_second=qwen25.tokens_per_second,
    second_per_grid=[1.0],
)
print(f"prompt length {len(types)}, largest id {ids.max()}")
print(f"temporal ids of the video's frames: {sorted(set(ids[0, 3 : 3 + tokens].tolist()))}")
print(f"ids of the last two text tokens: {ids[0, -2:].tolist()}")
first = pe.mrope_decode_positions(delta, start=len(types))[0, 0]
print(f"Answer: {delta} {first}")
