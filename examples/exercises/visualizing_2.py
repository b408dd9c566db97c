"""Exercise: the cosine similarity of PE(0) with PE(1) and with PE(10), d = 16."""

import pe

near = float(pe.analysis.similarity(0, 1, 16, measure="cosine"))
far = float(pe.analysis.similarity(0, 10, 16, measure="cosine"))
print(f"cos(PE(0), PE(1)) = {near:.4f}; cos(PE(0), PE(10)) = {far:.4f}")
print(f"Answer: {near:.4f} {far:.4f}")
