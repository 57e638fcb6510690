"""Chat templates: rendered as transformers renders them (``render.py``)."""

from .render import ChatTemplateError, compile_chat_template, render_chat

__all__ = ["ChatTemplateError", "compile_chat_template", "render_chat"]
