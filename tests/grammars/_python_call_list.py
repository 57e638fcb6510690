"""A call written as a Python keyword call, as the pythonic families write them
(`get_weather(city="Paris", days=3)`): strings double-quoted with JSON's escapes, True, False,
None, numbers as JSON writes them, lists and dicts with string keys. Shared by lfm2_pythonic,
llama3_2_pythonic and llama4_pythonic."""

import json

from grammars import Call, Unexpressible

NAME_START = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")


def literal(v) -> str:
    if isinstance(v, bool):
        return "True" if v else "False"
    if v is None:
        return "None"
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, dict):
        return "{" + ", ".join(json.dumps(k, ensure_ascii=False) + ": " + literal(x) for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(literal(x) for x in v) + "]"
    return json.dumps(v)


def python_call(c: Call) -> str:
    for key in c.arguments:
        if not (key[:1] in NAME_START and key.replace("_", "a").isascii() and key.replace("_", "a").isalnum()):
            raise Unexpressible(f"a keyword that is not a Python name: {key!r}")
    return c.name + "(" + ", ".join(f"{k}={literal(v)}" for k, v in c.arguments.items()) + ")"
