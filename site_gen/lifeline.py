"""Forked helper processes end when the process that forked them dies.

A build killed with SIGKILL cannot stop its helpers, and a helper that waits on a pipe or a
queue whose other end it also holds (every forked process inherits both) waits for good.
So each helper asks the kernel for SIGKILL when its parent dies (Linux ``PR_SET_PDEATHSIG``),
and checks once that the parent did not die before it asked.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import signal
import sys

_PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int) -> None:
    """In a forked helper: be killed when ``parent`` (the forking process's pid) dies."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # the parent died before the request above: nobody waits for us
        os._exit(1)
