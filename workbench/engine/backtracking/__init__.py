"""Loops in a regex that Python's ``re`` can take exponential time over.

``re`` backtracks: when the rest of a pattern fails, it retries every other way the loops so far
could have split the text. If a loop's body can match the same text in two ways — ``(a+)+``,
``(\\s*)*``, ``(a|aa)+``, ``(.|\\s)*`` — a run of n characters has about 2**n splits, and a
match that fails after it hangs; transformers runs these patterns with no time limit.

The check reads the structure re runs, not the spelling: the pattern is parsed with ``re``'s own
parser (which merges ``(\\w|\\d)`` into the class ``[\\w\\d]``, safe), turned into a position
automaton (Glushkov: one state per character-matching leaf; nullable, first and last sets per
subpattern), and a loop is reported when two different paths lead from a state back to itself over
the same text (exponential degree of ambiguity: a strongly connected part of the automaton squared
holding a diagonal pair and a divergent step). Character sets are intervals of code points, so
``[^<\\s]`` and ``\\s`` are known to be disjoint. Lookarounds are taken to succeed, except the
tempered dot ``(?:(?!</a>).)*``, whose guard is understood; a loop that another lookaround makes
unambiguous would be reported all the same.

Two unbounded loops side by side over overlapping characters (``\\s*\\s*x``) are reported too: only
polynomial, but cubic under ``search``, which tries every start position.

The package is split by concern: ``parsetree`` (re's parser and opcodes), ``charsets`` (code point
interval sets), ``automaton`` (the position automaton and the ambiguity check), ``quoting`` (where
each quantifier sits in the pattern text), ``unparse`` (writing parsed regexes back out),
``rewrites`` (the linear forms suggested) and ``risks`` (the ``risks`` function and ``Risk``, tying them
together).
``trims`` finds, apart, the polynomial whitespace trims (``\\s*(?:X)?\\s*``, ``(\\{.*?)\\s*``...)
that made shipped schemas slow on long whitespace runs.

Both are linear in the pattern's length for the most part; the loop check's automaton and search
can grow faster on intricate loops, so they have a budget (``automaton._BUILD_BUDGET`` and
``_SEARCH_BUDGET``), and a pattern the check gives up on gets an ``"unchecked"`` risk: validate
warns that it was not fully checked.
"""

from .risks import Risk, risks
from .trims import Trim, trims

__all__ = ["Risk", "risks", "Trim", "trims"]
