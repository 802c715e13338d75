"""What is kept on disk: the Chroma collection, the SQLite catalog, the BM25 index, indexing papers into all three,
and the one-writer lock."""
