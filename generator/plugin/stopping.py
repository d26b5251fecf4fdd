"""Under `mkdocs serve`, a polite stop (SIGTERM: an editor's stop button, a process manager, `kill`)
ends the server as Ctrl-C does.

MkDocs' dev server builds into a temporary folder and removes it when Ctrl-C stops it; on SIGTERM
Python ends at once and the folder stays behind (some 3 GB at three thousand scenarios, every time).
While the server runs, SIGTERM raises KeyboardInterrupt where Ctrl-C would, so MkDocs shuts down, the
plugins' `on_shutdown` runs and the folder goes. A handler someone else installed is left alone.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType
from typing import Any


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


class StopAsCtrlC:
    def __init__(self) -> None:
        self._before: Any = None  # the handler SIGTERM had, while this one stands in

    def start(self) -> None:
        """From MkDocs' main thread, as the server starts."""
        if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
            self._before = signal.signal(signal.SIGTERM, _interrupt)

    def stop(self) -> None:
        if self._before is not None and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, self._before)
            self._before = None
