"""What both command lines (``sizing.estimate``, ``sizing.plan``) share around their answer: their errors, one
terminal-safe line each on stderr, and their answer on stdout, to a reader that may stop reading early
(``| head``) without a traceback."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable

from sizing.catalog.errors import terminal_text

ERROR_EXIT = 2  # a bad input file or catalog: every problem is on stderr
CLOSED_PIPE_EXIT = 141  # as a program killed by SIGPIPE when its reader stops reading
LONGEST_LINE = 1_000  # a message quotes values cut to 80 characters; a line is cut here if anything escaped that
JSON_ERRORS = "errors stay plain text on stderr, one 'error: FILE:LINE: …' line each, with exit status 2"


def print_errors(lines: Iterable[str]) -> int:
    """Each problem on one line of stderr, its control characters escaped and cut (``terminal_text``); the exit
    status of a command line whose input was refused."""
    for line in lines:
        print(f"error: {terminal_text(line, LONGEST_LINE)}", file=sys.stderr)
    return ERROR_EXIT


def print_answer(text: str) -> int:
    """``text`` on stdout; 0, or CLOSED_PIPE_EXIT without a word when the reader closed the pipe early."""
    try:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        # what is still buffered would fail again as Python flushes stdout at exit: send it nowhere
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return CLOSED_PIPE_EXIT
    return 0
