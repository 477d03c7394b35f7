"""The runtime's end: at interpreter exit, and on an exception no code caught (on any thread),
which ends the whole job with its message on every rank (gaea::runtime::fail)."""

import atexit
import sys
import threading

from . import _gaea


def finalize():
    """Collective: destroys the live Gaea objects (newest first), then the runtime. MPI stays
    up (for mpi4py, or a later gaea.init())."""
    _gaea.finalize()


def _message(exc_type, exc):
    # Gaea's errors carry Gaea's message as it is; other exceptions say what they are.
    if isinstance(exc, _gaea.Error):
        return str(exc)
    return f"{exc_type.__name__}: {exc}"


_previous_hook = sys.excepthook
_previous_thread_hook = threading.excepthook


def _excepthook(exc_type, exc, tb):
    _previous_hook(exc_type, exc, tb)  # the traceback first
    if _gaea.initialized() and not issubclass(exc_type, KeyboardInterrupt):
        sys.stderr.flush()
        _gaea._fail(_message(exc_type, exc), 1)


def _thread_excepthook(args):
    _previous_thread_hook(args)
    if _gaea.initialized() and args.exc_type is not SystemExit:
        sys.stderr.flush()
        _gaea._fail(_message(args.exc_type, args.exc_value), 1)


sys.excepthook = _excepthook
threading.excepthook = _thread_excepthook
# Runs before mpi4py's exit handler (a C-level one), so the runtime ends while MPI is up.
atexit.register(_gaea._finalize_mpi)
