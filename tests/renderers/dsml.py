"""A chat format written as a Python encoder, for the tests of ``--renderer``: DSML-style tool
calls (an XML dialect of special-token tags, as DeepSeek-V3.2 documents its format) with thinking
pre-written by the generation prompt. Written for the workbench's tests from the format's
description; it is not any model's encoder.
"""

import json

BOS, EOS = "<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>"
USER, ASSISTANT = "<｜User｜>", "<｜Assistant｜>"
THINK, END_THINK = "<think>", "</think>"
DSML = "｜DSML｜"


def _parameter(key, value):
    if isinstance(value, str):
        return f'<{DSML}parameter name="{key}" string="true">{value}</{DSML}parameter>'
    return f'<{DSML}parameter name="{key}" string="false">{json.dumps(value, ensure_ascii=False)}</{DSML}parameter>'


def _calls(calls):
    lines = [f"<{DSML}function_calls>"]
    for call in calls:
        function = call["function"]
        arguments = function["arguments"]
        if isinstance(arguments, str):
            arguments = json.loads(arguments)
        lines.append(f'<{DSML}invoke name="{function["name"]}">')
        lines += [_parameter(key, value) for key, value in arguments.items()]
        lines.append(f"</{DSML}invoke>")
    lines.append(f"</{DSML}function_calls>")
    return "\n".join(lines)


def encode(messages, tools=None, add_generation_prompt=False, thinking=True):
    out = [BOS]
    if tools:
        out.append("## Tools\nYou may call these functions:\n" + "\n".join(json.dumps(t, ensure_ascii=False) for t in tools) + "\n\n")
    for message in messages:
        role = message["role"]
        if role == "system":
            out.append(message["content"] + "\n\n")
        elif role == "user":
            out.append(USER + message["content"])
        elif role == "tool":
            out.append(f"<function_results><result>{message['content']}</result></function_results>")
        elif role == "assistant":
            reasoning = message.get("reasoning_content") or ""
            out.append(ASSISTANT + (THINK + reasoning + END_THINK if thinking else END_THINK))
            out.append(message.get("content") or "")
            if message.get("tool_calls"):
                out.append("\n\n" + _calls(message["tool_calls"]))
            out.append(EOS)
        else:
            raise ValueError(f"unknown role {role!r}")
    if add_generation_prompt:
        out.append(ASSISTANT + (THINK if thinking else END_THINK))
    return "".join(out)
