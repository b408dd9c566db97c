"""Exercise: the divisor of the last pair of a 512-wide encoding."""

import pe

d_model = 512
last_pair = d_model // 2 - 1
divisor = 10000.0 ** (2 * last_pair / d_model)
rate = pe.frequencies(d_model)[-1]
print(f"pair {last_pair}: divisor 10000^({2 * last_pair}/{d_model}) = {divisor:.4f}")
print(f"1 / pe.frequencies(...)[-1] = {1 / rate:.4f}")
print(f"Answer: {divisor:.4f}")
