"""pe's RoPE inside a transformers Llama model: swap the rotary module, compare.

transformers 5's Llama-family models compute cos and sin once per forward pass,
in ``model.model.rotary_emb``: its ``forward(x, position_ids)`` returns two
tensors of shape ``(batch, seq, head_dim)`` in the concatenated (``rotate_half``)
layout, already multiplied by the rule's attention factor, and every attention
layer rotates its queries and keys with them. `PeRotary` answers the same call
from `pe.nn.RotaryEmbedding`'s table, so swapping it in changes nothing else in
the model.

The page "pe's RoPE inside a transformers model" includes the named sections;
`tests/test_rope_in_a_model.py` and `sitegen/pages/rope_in_a_model.py` call the
functions below the sections (`measure`, `tiny_llama`, ...), which build
2-layer Llama models of width 64 with seeded random weights: nothing is
downloaded.
"""

from __future__ import annotations

# --8<-- [start:adapter]
from typing import Any

import torch
from torch import nn

from pe.nn import RotaryEmbedding


class PeRotary(nn.Module):
    """Stand in for a transformers model's ``rotary_emb``: cos and sin from pe's table."""

    def __init__(self, rope: RotaryEmbedding) -> None:
        super().__init__()
        if rope.layout != "concatenated" or rope.rotary_dim != rope.head_dim:
            raise ValueError(
                "transformers' Llama attention rotates whole heads in the concatenated "
                f"layout; got layout={rope.layout!r}, rotary_dim={rope.rotary_dim} "
                f"of head_dim={rope.head_dim}"
            )
        self.rope = rope

    @torch.no_grad()
    def forward(self, x: torch.Tensor, position_ids: torch.Tensor) -> tuple[torch.Tensor, ...]:
        if int(position_ids.min()) < 0:
            raise ValueError(f"position_ids must be >= 0; got {int(position_ids.min())}")
        dtype = torch.float64 if x.dtype == torch.float64 else torch.float32
        length = int(position_ids.max()) + 1
        cos, sin = self.rope.table(length, device=x.device, dtype=dtype)  # (length, head_dim/2)
        cos, sin = cos[position_ids], sin[position_ids]  # (batch, seq, head_dim/2)
        # transformers pairs dimension i with i + head_dim/2: both halves get the same angle
        return torch.cat((cos, cos), dim=-1).to(x.dtype), torch.cat((sin, sin), dim=-1).to(x.dtype)


def use_pe_rope(model: Any, *, seq_len: int) -> None:
    """Replace the rotary module of a transformers Llama-family model (``model``) by pe's.

    `seq_len` is the longest context the model will serve: the length-dependent
    rules (dynamic, longrope) fix their frequencies for it, once.
    """
    config = model.config.to_dict()
    model.model.rotary_emb = PeRotary(RotaryEmbedding.from_config(config, seq_len=seq_len))


# --8<-- [end:adapter]

ORIGINAL = 32  # the "trained" context of every tiny model below
PREFILL = 28  # a prompt inside it
LENGTH = 40  # decoded past it
WEIGHT_STD = 0.1  # transformers' default 0.02 gives near-uniform attention: too flat to
# show what the positions do

TOLERANCE = 1e-4  # logits of pe and transformers; see the page for why
_HEAD_PAIRS = 8  # head_dim 16: hidden 64 over 4 heads

#: One ``rope_parameters`` dict per rule of transformers' ROPE_INIT_FUNCTIONS (and
#: "default"), with the ``max_position_embeddings`` the tiny model declares.
RULES: dict[str, tuple[dict[str, Any], int]] = {
    "default": ({"rope_type": "default", "rope_theta": 10000.0}, ORIGINAL),
    "linear": ({"rope_type": "linear", "rope_theta": 10000.0, "factor": 4.0}, 4 * ORIGINAL),
    "dynamic": ({"rope_type": "dynamic", "rope_theta": 10000.0, "factor": 4.0}, ORIGINAL),
    "yarn": (
        {
            "rope_type": "yarn",
            "rope_theta": 10000.0,
            "factor": 4.0,
            "original_max_position_embeddings": ORIGINAL,
        },
        4 * ORIGINAL,
    ),
    "longrope": (
        {
            "rope_type": "longrope",
            "rope_theta": 10000.0,
            "factor": 4.0,
            "original_max_position_embeddings": ORIGINAL,
            "short_factor": [1.0 + 0.05 * i for i in range(_HEAD_PAIRS)],
            "long_factor": [1.0 + 1.5 * i for i in range(_HEAD_PAIRS)],
        },
        4 * ORIGINAL,
    ),
    "llama3": (
        {
            "rope_type": "llama3",
            "rope_theta": 10000.0,
            "factor": 4.0,
            "low_freq_factor": 1.0,
            "high_freq_factor": 4.0,
            "original_max_position_embeddings": ORIGINAL,
        },
        4 * ORIGINAL,
    ),
    # As Gemma 4's full-attention layers: a quarter of the pairs turn (no factor:
    # transformers' check of this rule warns about one, though its rule reads it).
    "proportional": (
        {"rope_type": "proportional", "rope_theta": 10000.0, "partial_rotary_factor": 0.25},
        ORIGINAL,
    ),
}


def supported_rules() -> list[str]:
    """The rules of `RULES` that `pe.rope_frequencies` implements, in order."""
    from pe._rope import ROPE_RULES

    return [rule for rule in RULES if rule in ROPE_RULES]


def tiny_llama(rule: str, rope_parameters: dict[str, Any] | None = None) -> Any:
    """A 2-layer LlamaForCausalLM of width 64 with seeded random weights, in eval mode."""
    from transformers import LlamaConfig, LlamaForCausalLM

    parameters, max_positions = RULES[rule]
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=256,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=max_positions,
        initializer_range=WEIGHT_STD,
        rope_parameters=dict(rope_parameters or parameters),
    )
    return LlamaForCausalLM(config).eval()


def prompt(length: int = LENGTH) -> torch.Tensor:
    """Seeded token ids of shape ``(1, length)``."""
    return torch.randint(0, 256, (1, length), generator=torch.Generator().manual_seed(1))


@torch.no_grad()
def full_pass(model: Any, ids: torch.Tensor) -> torch.Tensor:
    """Logits of every position from one forward pass."""
    logits: torch.Tensor = model(ids).logits
    return logits


@torch.no_grad()
def decoded(model: Any, ids: torch.Tensor, prefill: int = PREFILL) -> torch.Tensor:
    """Logits of every position: `prefill` tokens at once, then one token at a time."""
    out = model(ids[:, :prefill], use_cache=True)
    steps = [out.logits]
    for t in range(prefill, ids.shape[1]):
        out = model(ids[:, t : t + 1], past_key_values=out.past_key_values, use_cache=True)
        steps.append(out.logits)
    return torch.cat(steps, dim=1)


def gap(a: torch.Tensor, b: torch.Tensor) -> float:
    """Largest absolute difference."""
    return float((a - b).abs().max())


def with_pe(rule: str, seq_len: int) -> Any:
    """The rule's tiny model with pe's rotary module fixed for `seq_len` positions."""
    model = tiny_llama(rule)
    use_pe_rope(model, seq_len=seq_len)
    return model


@torch.no_grad()
def cos_sin_gap(rule: str, length: int) -> float:
    """Largest difference between transformers' cos, sin and pe's, positions 0..length-1."""
    model = tiny_llama(rule)
    positions = torch.arange(length)[None]
    x = torch.zeros(1, length, 64)
    theirs = model.model.rotary_emb(x, positions)
    ours = PeRotary(RotaryEmbedding.from_config(model.config.to_dict(), seq_len=length))(
        x, positions
    )
    return max(gap(a, b) for a, b in zip(theirs, ours, strict=True))


def measure(rule: str) -> dict[str, float]:
    """Every comparison of the page for one rule (logit differences, largest over positions).

    - ``cos_sin``: cos, sin of pe vs transformers, positions 0..LENGTH-1;
    - ``short``, ``long``: logits of pe vs transformers, full pass of PREFILL and
      of LENGTH tokens (pe fixed for that length);
    - ``pe_decode``: pe fixed for LENGTH, PREFILL tokens then one at a time, vs
      transformers' full pass of LENGTH tokens;
    - ``pe_self``: the same decode vs pe's own full pass;
    - ``hf_decode``: transformers' module decoding the same way vs its own full pass;
    - ``cost``: pe fixed for LENGTH, on the PREFILL-token prompt, vs transformers'
      full pass of that prompt (what the short prompt gets when the length is fixed).
    """
    ids = prompt()
    short = ids[:, :PREFILL]
    hf_long = full_pass(tiny_llama(rule), ids)
    hf_short = full_pass(tiny_llama(rule), short)
    hf_decode = decoded(tiny_llama(rule), ids)
    fixed = with_pe(rule, LENGTH)
    pe_long = full_pass(fixed, ids)
    pe_decode = decoded(fixed, ids)
    return {
        "cos_sin": cos_sin_gap(rule, LENGTH),
        "short": gap(full_pass(with_pe(rule, PREFILL), short), hf_short),
        "long": gap(pe_long, hf_long),
        "pe_decode": gap(pe_decode, hf_long),
        "pe_self": gap(pe_decode, pe_long),
        "hf_decode": gap(hf_decode, hf_long),
        "cost": gap(full_pass(fixed, short), hf_short),
        "logit_std": float(hf_long.std()),
    }


if __name__ == "__main__":
    # --8<-- [start:demo]
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    config = LlamaConfig(  # a tiny Llama with random weights and YaRN scaling
        vocab_size=256,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=128,
        initializer_range=0.1,
        rope_parameters={
            "rope_type": "yarn",
            "rope_theta": 10000.0,
            "factor": 4.0,
            "original_max_position_embeddings": 32,
        },
    )
    model = LlamaForCausalLM(config).eval()
    ids = torch.randint(0, 256, (1, 48))

    with torch.no_grad():
        theirs = model(ids).logits  # transformers' own rotary module
        use_pe_rope(model, seq_len=128)
        ours = model(ids).logits
        # Prefill 24 tokens into the KV cache, then decode the rest one at a time.
        out = model(ids[:, :24], use_cache=True)
        steps = [out.logits]
        for t in range(24, 48):
            out = model(ids[:, t : t + 1], past_key_values=out.past_key_values, use_cache=True)
            steps.append(out.logits)
        decoded_logits = torch.cat(steps, dim=1)

    print(type(model.model.rotary_emb).__name__, "with attention factor", end=" ")
    print(f"{model.model.rotary_emb.rope.attention_factor:.4f}")
    print("logits within 1e-4 of transformers':", (ours - theirs).abs().max().item() < 1e-4)
    gap_decoded = (decoded_logits - ours).abs().max().item()
    print("decoding within 1e-4 of the full pass:", gap_decoded < 1e-4)
    # --8<-- [end:demo]
