"""Renderers that misbehave, for the tests of ``--renderer``'s budget and messages. Importing
this file writes the importing process's id to the file named by WORKBENCH_TEST_MARKER, so a test
can tell where the code ran."""

import os

if os.environ.get("WORKBENCH_TEST_MARKER"):
    with open(os.environ["WORKBENCH_TEST_MARKER"], "a", encoding="utf-8") as marker:
        marker.write(f"{os.getpid()}\n")


def spins(messages, add_generation_prompt=False):
    while True:
        pass


def hoards(messages, add_generation_prompt=False):
    return "x" * (2**40)


def raises(messages, add_generation_prompt=False):
    turn = messages[-1]
    return turn["no such key"]  # the line a KeyError is reported at (RAISES_LINE)


def not_text(messages, add_generation_prompt=False):
    return [1, 2, 3]
