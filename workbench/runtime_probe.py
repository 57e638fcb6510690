"""Run inside another environment's Python (a given transformers release): load a tokenizer folder
and call ``parse_response`` on samples, as a user of that release would.

It imports nothing from workbench, so that it runs with only transformers installed: verify.py
starts it as ``python -I runtime_probe.py`` and talks JSON over stdin/stdout.

Request: ``{"jobs": [{"dir": str, "samples": [{"text": str, "prefix": str}, ...]}, ...]}``: one
process answers for many folders (a release takes seconds to import). Answer: ``{"answers": [...]}``,
one per job: ``{"transformers": version, "loaded": {key: value or null}, "load_error": str or null,
"default": [outcome], "legacy": [outcome] or null}``, where an outcome is ``{"value": message}`` or
``{"error": type name, "message": str}``. ``default`` is ``tokenizer.parse_response`` as a user calls
it (with ``prefix=`` when a template was loaded, which needs one); ``legacy`` is the loaded
``response_schema`` passed explicitly, which is what releases before 5.13 run.
"""

from __future__ import annotations

import json
import sys
import warnings

KEYS = ("response_schema", "response_template")


def outcome(call) -> dict:
    try:
        return {"value": call()}
    except Exception as exc:  # noqa: BLE001 - what the release raises is the answer
        return {"error": type(exc).__name__, "message": str(exc)}


def main() -> None:
    request = json.load(sys.stdin)
    print(json.dumps({"answers": [answer_for(job) for job in request["jobs"]]}))


def answer_for(request: dict) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import transformers
        from transformers import AutoTokenizer

    answer: dict = {"transformers": transformers.__version__, "loaded": {}, "load_error": None, "default": [], "legacy": None}
    try:
        tokenizer = AutoTokenizer.from_pretrained(request["dir"])
    except Exception as exc:  # noqa: BLE001
        answer["load_error"] = f"{type(exc).__name__}: {exc}"
        return answer
    answer["loaded"] = {key: getattr(tokenizer, key, None) for key in KEYS}
    template, schema = answer["loaded"]["response_template"], answer["loaded"]["response_schema"]
    for sample in request["samples"]:
        text, prefix = sample["text"], sample["prefix"]
        if template is not None:
            answer["default"].append(outcome(lambda: tokenizer.parse_response(text, prefix=prefix)))
        else:
            answer["default"].append(outcome(lambda: tokenizer.parse_response(text)))
    if schema is not None:
        answer["legacy"] = [outcome(lambda: tokenizer.parse_response(s["text"], schema=schema)) for s in request["samples"]]
    return answer


if __name__ == "__main__":
    main()
