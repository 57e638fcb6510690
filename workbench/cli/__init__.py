"""The command line: one thin module per command over formats/ and the engine, sharing their functions with the TUI."""
