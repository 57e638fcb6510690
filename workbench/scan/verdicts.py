"""What a scan says of one row: a verdict, and for ``suspect`` the kind."""

from __future__ import annotations

PARSED = "parsed"
RAISED = "raised"  # the parse failed: ``where`` is the failing node (schema) or key (template)
TIMEOUT = "timeout"  # a regex ran past the engine's time limit (transformers would keep running)
DIFFERS = "differs"  # the message is not the expected column's: ``where`` is the first path
SUSPECT = "suspect"  # it parsed, and something in it looks wrong: ``kind`` says what
VERDICTS = (PARSED, RAISED, TIMEOUT, DIFFERS, SUSPECT)

# The kinds of ``suspect``, in the order a row is checked (the first found is the row's kind).
MARKER_LEFT = "marker_left"  # a delimiter or special token of the parser inside a parsed value
DROPPED = "dropped"  # text of the output the template throws away
OVERWRITTEN = "overwritten"  # a value a later region of the same field replaced
EMPTY_MESSAGE = "empty_message"  # nothing parsed out of an output that is not empty
UNKNOWN_TOOL = "unknown_tool"  # a call to a tool the row's tools do not have (--tools-column)
ARGUMENTS_OFF_SCHEMA = "arguments_off_schema"  # arguments its tool's JSON schema refuses
STREAM_DIFFERS = "stream_differs"  # a streamed parse parts from the one-shot one (--chunkings)

FAILING = (RAISED, TIMEOUT, DIFFERS, SUSPECT)
