"""What a question asks, read before retrieval: its form, the metadata it names (matched against the collection's
own values, through the views), names, spelling, rewrites and translation."""
