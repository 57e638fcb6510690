"""Run inside another environment's Python (a given transformers release): load a tokenizer folder
and call ``parse_response`` on samples, as a user of that release would.

It imports nothing from workbench, so that it runs with only transformers installed: runtimes.py
starts it as ``python -I runtime_probe.py REQUEST ANSWER`` with no stdin, and reads only the
ANSWER file. Whatever transformers prints (warnings, progress, a ``trust_remote_code`` question)
goes to stdout and stderr, which carry no answer.

REQUEST (a JSON file): ``{"jobs": [{"dir": str, "samples": [{"text": str, "prefix": str, "name":
str}, ...]}, ...], "time_limit": seconds}``: one process answers for many folders (a release takes
seconds to import). ANSWER (written here, JSON lines, each flushed): ``{"at": [job, sample]}``
before each folder is loaded (sample ``null``) and before each parse, so that whoever stops a
probe that hangs can say where; then, last, ``{"answers": [...]}``, one per job:
``{"transformers": version, "loaded": {key: value or null}, "load_error": str or null,
"remote_code": bool, "default": [outcome], "legacy": [outcome] or null}``, where an outcome is
``{"value": message}``, ``{"error": type name, "message": str}`` or ``{"timeout": seconds}`` (the
parse ran past ``time_limit``, the workbench's own limit for a parse). ``default`` is
``tokenizer.parse_response`` as a user calls it (with ``prefix=`` when a template was loaded,
which needs one); ``legacy`` is the loaded ``response_schema`` passed explicitly, which is what
releases before 5.13 run.

The folder is loaded with ``trust_remote_code=False``: custom tokenizer code is never run, and a
folder that needs it gives a load error with ``remote_code`` set.
"""

from __future__ import annotations

import json
import signal
import sys
import warnings

KEYS = ("response_schema", "response_template")


class ParseTimeout(BaseException):
    """The parse ran past the time limit. A BaseException, so that no ``except Exception`` in the
    code under test takes it for the parse's own error."""


def _expire(signum, frame):
    raise ParseTimeout


def outcome(call, limit: float) -> dict:
    previous = signal.signal(signal.SIGALRM, _expire)
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        value = call()
    except ParseTimeout:
        return {"timeout": limit}
    except Exception as exc:  # noqa: BLE001 - what the release raises is the answer
        return {"error": type(exc).__name__, "message": str(exc)}
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    # As returned: before 5.21 a later parse appends to a list default this message shares.
    try:
        return {"value": json.loads(json.dumps(value))}
    except (TypeError, ValueError):
        return {"value": value}  # not JSON: the answer file's writer names it


class Answer:
    def __init__(self, path: str) -> None:
        self.handle = open(path, "w", encoding="utf-8")

    def line(self, value: dict) -> None:
        self.handle.write(json.dumps(value) + "\n")
        self.handle.flush()


def main() -> None:
    request_path, answer_path = sys.argv[1], sys.argv[2]
    with open(request_path, encoding="utf-8") as handle:
        request = json.load(handle)
    answer = Answer(answer_path)
    limit = float(request["time_limit"])
    answers = [answer_for(i, job, limit, answer) for i, job in enumerate(request["jobs"])]
    answer.line({"answers": answers})


def answer_for(index: int, request: dict, limit: float, progress: Answer) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import transformers
        from transformers import AutoTokenizer

    answer: dict = {"transformers": transformers.__version__, "loaded": {}, "load_error": None, "remote_code": False,
                    "default": [], "legacy": None}
    progress.line({"at": [index, None]})
    try:
        tokenizer = AutoTokenizer.from_pretrained(request["dir"], trust_remote_code=False)
    except Exception as exc:  # noqa: BLE001
        answer["load_error"] = f"{type(exc).__name__}: {exc}"
        answer["remote_code"] = "trust_remote_code" in str(exc)
        return answer
    answer["loaded"] = {key: getattr(tokenizer, key, None) for key in KEYS}
    template, schema = answer["loaded"]["response_template"], answer["loaded"]["response_schema"]
    for number, sample in enumerate(request["samples"]):
        text, prefix = sample["text"], sample["prefix"]
        progress.line({"at": [index, number]})
        if template is not None:
            answer["default"].append(outcome(lambda: tokenizer.parse_response(text, prefix=prefix), limit))
        else:
            answer["default"].append(outcome(lambda: tokenizer.parse_response(text), limit))
    if schema is not None:
        answer["legacy"] = []
        for number, sample in enumerate(request["samples"]):
            progress.line({"at": [index, number]})
            answer["legacy"].append(outcome(lambda: tokenizer.parse_response(sample["text"], schema=schema), limit))
    return answer


if __name__ == "__main__":
    main()
