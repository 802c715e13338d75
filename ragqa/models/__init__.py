"""Models from packaged weights: fetching and verifying them, the embedders (torch, int8 ONNX, hashing for tests),
the LLM backends and the prompt templates they are given."""
