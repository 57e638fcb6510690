"""The response_schema engine: parse (the interpreter), trace, validate, colours, incremental reuse."""
