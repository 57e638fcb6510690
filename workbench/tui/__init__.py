"""The terminal UI: a thin Textual layer over formats/ and the analysis process (see docs/architecture.md)."""
