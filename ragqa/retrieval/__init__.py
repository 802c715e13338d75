"""Question + filters -> ranked papers (dense + BM25, fused per paper), and the Hit record every later stage reads."""
