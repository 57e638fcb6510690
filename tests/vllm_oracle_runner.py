"""Runs in the vLLM oracle's environment (tests/vllm_oracle.py): vLLM 0.33.0's own serving rules on
templates, without importing vLLM.

`import vllm.parser...` runs vllm/__init__.py, which imports vllm.env_override, which imports torch;
and vllm/parser/response_template.py itself imports openai, pydantic, xgrammar and half of vLLM. So
this script never imports the `vllm` package. It loads the wheel's chat-parsing copy
(vllm/parser/chat_parsing/, which needs only `regex`) as a package of its own, and takes from
vllm/parser/response_template.py, by name, the module-level constants and the two functions that
hold the template rules (validate_response_template_for_serving, _streaming_template), compiled from
the wheel's source as they are. Those use nothing but `copy` and load_response_template; a change
that made them use more would fail here with a NameError, not pass silently.

    python vllm_oracle_runner.py SRC < requests.json > results.json

SRC holds vllm/parser/... as extracted from the wheel. Each request is one of
    {"op": "serve", "template": T}
        -> {"ok": true, "fields": {name: optional}, "implicit": name or null} (the streaming template)
        or {"ok": false, "type": "ValueError", "message": "..."}
    {"op": "parse", "template": T, "prefix": P, "text": X}
        -> {"ok": true, "message": M}: what vLLM's parse runs (the streaming template, fed and finalized)
        or {"ok": false, "type": ..., "message": ...}
"""

from __future__ import annotations

import __future__
import ast
import copy
import importlib.util
import json
import sys
from pathlib import Path

NAMES = (
    "THINKING_FIELD",
    "CONTENT_FIELD",
    "TOOL_FIELD",
    "_SUPPORTED_FIELDS",
    "validate_response_template_for_serving",
    "_streaming_template",
)


def load(src: Path) -> dict:
    package = src / "vllm" / "parser" / "chat_parsing"
    spec = importlib.util.spec_from_file_location(
        "vllm_chat_parsing", package / "__init__.py", submodule_search_locations=[str(package)]
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules["vllm_chat_parsing"] = module
    spec.loader.exec_module(module)
    from vllm_chat_parsing.response_templates import load_response_template

    source_path = src / "vllm" / "parser" / "response_template.py"
    tree = ast.parse(source_path.read_text(encoding="utf-8"))
    kept = [
        node
        for node in tree.body
        if (isinstance(node, ast.FunctionDef) and node.name in NAMES)
        or (isinstance(node, ast.Assign) and any(getattr(t, "id", None) in NAMES for t in node.targets))
    ]
    found = {getattr(node, "name", None) or node.targets[0].id for node in kept}
    if found != set(NAMES):
        raise SystemExit(f"{source_path} no longer defines {sorted(set(NAMES) - found)}")
    namespace = {"copy": copy, "load_response_template": load_response_template}
    code = compile(
        ast.Module(body=kept, type_ignores=[]),
        str(source_path),
        "exec",
        flags=__future__.annotations.compiler_flag,
        dont_inherit=True,
    )
    exec(code, namespace)
    namespace["ResponseParser"] = module.ResponseParser
    return namespace


def answer(vllm: dict, request: dict) -> dict:
    try:
        vllm["validate_response_template_for_serving"](request["template"])
        streaming = vllm["_streaming_template"](request["template"])
        if request["op"] == "serve":
            return {
                "ok": True,
                "fields": {name: field.optional for name, field in streaming.fields.items()},
                "implicit": streaming.implicit,
            }
        parser = vllm["ResponseParser"](streaming, prefix=request["prefix"])
        parser.feed(request["text"])
        message, _events = parser.finalize()
        return {"ok": True, "message": message}
    except Exception as exc:  # the answer is the exception, as vLLM would raise it
        return {"ok": False, "type": type(exc).__name__, "message": str(exc)}


def main() -> None:
    vllm = load(Path(sys.argv[1]))
    requests = json.load(sys.stdin)
    json.dump([answer(vllm, request) for request in requests], sys.stdout)


if __name__ == "__main__":
    main()
