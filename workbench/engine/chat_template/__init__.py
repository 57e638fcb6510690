"""Chat templates: rendered as transformers renders them (``render.py``), under a budget in a child
process (``budget.py``), and the round trip of probe messages through a template and a response
parser (``roundtrip.py``)."""

from .budget import ChatRenderer, RenderBudget, RenderOverBudget, SandboxedRenderer
from .render import RESERVED_VARIABLES, ChatTemplateError, compile_chat_template, render_chat, reserved_variable

__all__ = [
    "RESERVED_VARIABLES", "ChatRenderer", "ChatTemplateError", "RenderBudget", "RenderOverBudget", "SandboxedRenderer",
    "compile_chat_template", "render_chat", "reserved_variable",
]
