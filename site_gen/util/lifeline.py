"""Forked helper processes end when the process that forked them dies.

A build killed with SIGKILL cannot stop its helpers, and a helper that waits on a pipe or a
queue whose other end it also holds (every forked process inherits both) waits for good.
So each helper asks the kernel for SIGKILL when its parent dies (Linux ``PR_SET_PDEATHSIG``),
and checks once that the parent did not die before it asked.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys

_PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int) -> None:
    """In a forked helper: be killed when ``parent`` (the forking process's pid) dies, and
    leave signals to it. A helper inherits the parent's handlers, and the watch session's
    turn SIGTERM into KeyboardInterrupt (cli.py): a pool ended with SIGTERM printed one
    traceback per helper. Ctrl-C reaches every process of the terminal's group; the parent
    ends its helpers."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            # the process's own symbols, libc's among them: find_library("c") would run
            # ldconfig in a child process in every helper that starts (2-12 ms each)
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # the parent died before the request above: nobody waits for us
        os._exit(1)
