"""The command line: thin commands over the engine, sharing its functions with the TUI."""
