"""The response templates transformers 5.23.0 ships as `transformers serve` fallbacks
(docs/response-template.md#fallback-templates), as test data: the runtime's own, so tests on them need no judgement
about what a right template is."""

QWEN3 = {
    "defaults": {"role": "assistant"}, "start_anchor": "<|im_start|>assistant\n",
    "fields": {
        "reasoning_content": {"open": "<think>", "close": "</think>", "content": "text"},
        "tool_calls": {"open_pattern": "\\s*<tool_call>", "close": "</tool_call>", "repeats": True, "content": "json",
                       "transform": {"type": "function", "function": "{content}"}},
        "content": {"close_pattern": "\\s*(?:<\\|im_end\\|>|<\\|endoftext\\|>|<\\|eot_id\\|>)", "content": "text"},
    },
}
QWEN3_5 = {
    "defaults": {"role": "assistant"}, "start_anchor": "<|im_start|>assistant\n",
    "fields": {
        "reasoning_content": {"open": "<think>", "close": "</think>", "content": "text"},
        "tool_calls": {
            "open_pattern": "\\s*<tool_call>\\s*<function=(?P<name>[^>\\n]+)>", "close_pattern": "</function>\\s*</tool_call>",
            "repeats": True, "content": "xml-inline",
            "content_args": {"tag_pattern": "<parameter=(?P<key>[^>\\n]+)>\\s*(?P<value>.*?)\\s*</parameter>"},
            "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}},
        },
        "content": {"close_pattern": "\\s*(?:<\\|im_end\\|>|<\\|endoftext\\|>)", "content": "text"},
    },
}
GEMMA4 = {
    "defaults": {"role": "assistant"}, "start_anchor": ["<|turn>model\n", "<tool_response|>"],
    "fields": {
        "reasoning_content": {"open": "<|channel>thought\n", "close": "<channel|>", "content": "text"},
        "tool_calls": {
            "open_pattern": "<\\|tool_call>call:(?P<name>\\w+)", "close": "<tool_call|>", "repeats": True, "content": "json",
            "content_args": {"unquoted_keys": True, "string_delims": [["<|\"|>", "<|\"|>"]]},
            "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}},
        },
        "content": {"close": ["<turn|>", "<|tool_response>", "<eos>"], "content": "text"},
    },
}
