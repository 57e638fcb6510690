"""Chat templates: rendered as transformers renders them (``render.py``), and the round trip of
probe messages through a template and a response parser (``roundtrip.py``)."""

from .render import ChatTemplateError, compile_chat_template, render_chat

__all__ = ["ChatTemplateError", "compile_chat_template", "render_chat"]
