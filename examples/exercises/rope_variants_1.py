"""Exercise: the KV cache of one 131,072-token sequence in DeepSeek-V3, with MLA and as MHA."""

# deepseek-ai/DeepSeek-V3, config.json: the attention part.
layers = 61  # num_hidden_layers
heads = 128  # num_attention_heads
latent = 512  # kv_lora_rank: the cached latent c_KV
rope_key = 64  # qk_rope_head_dim: the shared rotary key k_R, cached beside it
head_size = 128  # v_head_dim, the per-head size d_h of DeepSeek-V2's Table 1
tokens = 131_072
bytes_per_number = 2  # BF16

mla = latent + rope_key  # numbers per token and layer
mha = 2 * heads * head_size  # a key and a value for every head
gib = 2**30
mla_gib = tokens * layers * mla * bytes_per_number / gib
mha_gib = tokens * layers * mha * bytes_per_number / gib
print(f"per token and layer: MLA {mla}, MHA {mha} ({mha / mla:.1f} times as many)")
print(f"one sequence of {tokens:,} tokens: MLA {mla_gib:.2f} GiB, MHA {mha_gib:.2f} GiB")
print(f"Answer: {mla_gib:.4f} {mha_gib:.4f}")
