"""The second oracle's server: transformers' `response_template` engine, answering JSON lines.

Run by tests/template_oracle.py with the python of the environment that ensure_env(version) builds
(one per transformers release, 5.23.0 and later, no torch); it uses only the standard library and
transformers, never workbench, and the same code serves every release (the ready line names it). One request per line on stdin, one answer per line on stdout, in order:

    {"id": 1, "op": "version"}
    {"id": 2, "op": "parse", "text": "...", "template": {...}, "prefix": "", "tools": null}
    {"id": 3, "op": "stream", "chunks": ["...", ...], "template": {...}, "prefix": "", "tools": null,
     "after": ["x", null]}
    {"id": 4, "op": "render", "folder": "/tokenizer", "messages": [...], "tools": null,
     "add_generation_prompt": false, "name": null, "kwargs": {}}

`after` lists calls made once finalize() has returned: a string is a feed(), null a finalize().

Answers are {"id": N, "ok": true, "result": ...}, or {"id": N, "ok": false, "unencodable": "..."}
when a value that transformers returned has no faithful JSON form, or {"id": N, "ok": false,
"protocol": "..."} for a malformed request. An exception raised by transformers is a result, not a
failure: {"type": "ValueError", "message": str(exc)}.

Encoding: json.dumps(allow_nan=True, ensure_ascii=True). NaN and +/-Infinity therefore cross as
the tokens NaN / Infinity / -Infinity, which Python's json.loads reads back as the same floats; int
and float stay distinct (1 vs 1.0), -0.0 and key order are kept, and lone surrogates cross as
\\udXXX escapes. Anything else that JSON cannot carry (a tuple, a non-str dict key, a str or int
subclass, any other object) is not converted: the answer is "unencodable", with the path and repr.
"""

from __future__ import annotations

import json
import os
import sys
import warnings

# Set by main(): transformers is imported there, so importing this module (to test check_plain)
# neither imports transformers nor touches stdout.
transformers = parse_response = ResponseParser = None
_PROTOCOL = None

_PLAIN_SCALARS = (str, int, float, bool, type(None))


class Unencodable(Exception):
    pass


def check_plain(value, path="$"):
    """Raise Unencodable unless json.dumps/json.loads give back exactly this value and types."""
    kind = type(value)
    if kind in _PLAIN_SCALARS:
        return
    if kind is list:
        for i, item in enumerate(value):
            check_plain(item, f"{path}[{i}]")
        return
    if kind is dict:
        for key, item in value.items():
            if type(key) is not str:
                raise Unencodable(f"{path}: dict key {key!r} of type {type(key).__name__}")
            check_plain(item, f"{path}[{key!r}]")
        return
    raise Unencodable(f"{path}: {kind.__module__}.{kind.__qualname__} {value!r:.200}")


def error_of(exc):
    return {"type": type(exc).__name__, "message": str(exc)}


def snapshot(value):
    """The value as JSON text now (events are encoded as soon as a call returns them)."""
    check_plain(value)
    return json.loads(json.dumps(value, allow_nan=True))


def do_parse(req):
    text, template, prefix, tools = req["text"], req["template"], req.get("prefix"), req.get("tools")
    try:
        value = parse_response(text, template, prefix=prefix, tools=tools)
    except Exception as exc:  # an error of the oracle is a result
        return {"error": error_of(exc)}
    return {"value": snapshot(value)}


def do_stream(req):
    out = {
        "initial_events": None,
        "events": [],
        "message": None,
        "final_events": None,
        "after": [],
        "error": None,
    }

    def fail(exc, step, index=None):
        out["error"] = {**error_of(exc), "step": step, "index": index}
        return out

    template, chunks, prefix, tools = req["template"], req["chunks"], req.get("prefix"), req.get("tools")
    after = req.get("after") or []
    try:
        parser = ResponseParser(template, prefix, tools=tools)
    except Exception as exc:
        return fail(exc, "construct")
    out["initial_events"] = snapshot(parser.initial_events)
    for i, chunk in enumerate(chunks):
        try:
            events = parser.feed(chunk)
        except Exception as exc:
            return fail(exc, "feed", i)
        out["events"].append(snapshot(events))
    try:
        message, final_events = parser.finalize()
    except Exception as exc:
        return fail(exc, "finalize")
    out["message"] = snapshot(message)
    out["final_events"] = snapshot(final_events)
    for i, call in enumerate(after):
        try:
            if call is None:
                message, final_events = parser.finalize()
                out["after"].append({"message": snapshot(message), "final_events": snapshot(final_events)})
            else:
                out["after"].append({"events": snapshot(parser.feed(call))})
        except Exception as exc:
            return fail(exc, "after", i)
    return out


def do_version(req):
    import platform

    import regex

    return {
        "transformers": transformers.__version__,
        "regex": regex.__version__,
        "python": platform.python_version(),
        "executable": sys.executable,
    }


def do_render(req):
    """`AutoTokenizer.from_pretrained(folder).apply_chat_template(messages, tokenize=False, ...)`."""
    from transformers import AutoTokenizer

    try:
        tokenizer = AutoTokenizer.from_pretrained(req["folder"])
        text = tokenizer.apply_chat_template(
            req["messages"], tools=req.get("tools"), add_generation_prompt=req.get("add_generation_prompt", False),
            chat_template=req.get("name"), tokenize=False, **req.get("kwargs", {}),
        )
    except Exception as exc:  # an error of the oracle is a result
        return {"error": error_of(exc)}
    return {"value": text}


OPS = {"version": do_version, "parse": do_parse, "stream": do_stream, "render": do_render}


def answer(message):
    _PROTOCOL.write(json.dumps(message, allow_nan=True, ensure_ascii=True) + "\n")
    _PROTOCOL.flush()


def main():
    global transformers, parse_response, ResponseParser, _PROTOCOL
    # The protocol owns the real stdout; anything else that prints (transformers' advice, a stray
    # print) goes to stderr, which the client drains.
    _PROTOCOL = os.fdopen(os.dup(1), "w", encoding="ascii", newline="\n")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import transformers
        from transformers.utils.chat_parsing import ResponseParser, parse_response

    answer({"ready": True, "transformers": transformers.__version__, "pid": os.getpid()})
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        req_id = None
        try:
            req = json.loads(line.decode("utf-8", "surrogatepass"))
            req_id = req.get("id")
            op = OPS[req["op"]]
        except Exception as exc:
            answer({"id": req_id, "ok": False, "protocol": f"{type(exc).__name__}: {exc}"})
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                result = op(req)
        except Unencodable as exc:
            answer({"id": req_id, "ok": False, "unencodable": str(exc)})
            continue
        except KeyError as exc:  # a field missing from the request
            answer({"id": req_id, "ok": False, "protocol": f"missing request field {exc}"})
            continue
        answer({"id": req_id, "ok": True, "result": result})


if __name__ == "__main__":
    main()
