"""``python subreaper.py COMMAND...``: run COMMAND as a child, adopt every orphan below it, and
never wait for them, so a process whose parent died stays a zombie, as it does in a container
whose init never reaps (the export supervisor's workers after ``kill -9`` of the supervisor)."""

from __future__ import annotations

import ctypes
import signal
import subprocess
import sys

PR_SET_CHILD_SUBREAPER = 36

if __name__ == "__main__":
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1)
    # The test stops the whole process group: the command gets the signal itself.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    child = subprocess.Popen(sys.argv[1:])
    sys.exit(child.wait())
