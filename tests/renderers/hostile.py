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


def escapes(messages, add_generation_prompt=False):
    """Raises its own limits as far as it can and leaves a process running: says what it got."""
    import resource
    import subprocess

    for limit in (resource.RLIMIT_AS, resource.RLIMIT_CPU):
        try:
            resource.setrlimit(limit, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        except (ValueError, OSError):
            _, hard = resource.getrlimit(limit)
            try:
                resource.setrlimit(limit, (hard, hard))
            except (ValueError, OSError):
                pass
    started = subprocess.Popen(["sleep", "60"])
    forked = os.fork()
    if forked == 0:
        import time

        time.sleep(60)
        os._exit(0)
    return " ".join(str(n) for n in (resource.getrlimit(resource.RLIMIT_AS)[0], resource.getrlimit(resource.RLIMIT_CPU)[0],
                                     os.getpgrp(), started.pid, forked))
