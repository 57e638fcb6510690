"""The terminal UI: a thin Textual layer over the engine (see workbench.analysis)."""
