"""Text shared by every stage: cleaning abstracts, sentences, content terms, untrusted-instruction spotting.
Imports nothing else of ragqa but errors."""
