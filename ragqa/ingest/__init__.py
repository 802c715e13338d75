"""Files -> Paper records: listing and reference-manager formats, reading bytes, venue names, spilling a large load
to disk, and exporting records back to citation files."""
