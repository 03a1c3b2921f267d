"""A small progress bar on standard error for long analyses (no dependency).

``ProgressBar`` is the ``progress`` callable the analyses take: it is called with the fraction done
in [0, 1]. It draws nothing during the first ``delay`` seconds (short runs stay silent), redraws at
most every ``interval`` seconds, and is silent when the stream is not a terminal unless ``force``.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO


class ProgressBar:
    """``bar(fraction)`` draws ``label [#######.......]  45%  1.2 s``; ``bar.close()`` ends the line."""

    def __init__(self, label: str = "", stream: TextIO | None = None, force: bool = False, enabled: bool = True,
                 delay: float = 0.5, interval: float = 0.1, width: int = 30):
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        is_tty = getattr(self.stream, "isatty", lambda: False)()
        self.enabled = enabled and (force or is_tty)
        self.delay, self.interval, self.width = delay, interval, width
        self._start = time.monotonic()
        self._last_draw = -float("inf")
        self._drawn = False
        self._fraction = 0.0

    def __call__(self, fraction: float) -> None:
        self._fraction = min(max(float(fraction), 0.0), 1.0)
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self._start < self.delay or (now - self._last_draw < self.interval and self._fraction < 1.0):
            return
        self._last_draw = now
        self._draw(now)

    def _draw(self, now: float) -> None:
        filled = int(round(self.width * self._fraction))
        bar = "#" * filled + "." * (self.width - filled)
        label = f"{self.label} " if self.label else ""
        self.stream.write(f"\r{label}[{bar}] {100.0 * self._fraction:3.0f}%  {now - self._start:.1f} s")
        self.stream.flush()
        self._drawn = True

    def close(self) -> None:
        """Finish the line if anything was drawn (showing the last fraction reached)."""
        if self._drawn:
            self._draw(time.monotonic())
            self.stream.write("\n")
            self.stream.flush()
            self._drawn = False

    def __enter__(self) -> ProgressBar:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

