"""Ranked papers -> an answer: answerability and topical decisions, evidence sentences, the prompt, citations
checked against sources, guards, answers written in code, the conversation."""
