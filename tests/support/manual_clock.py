"""A clock that moves only when a test moves it: the index catalog's age (contract §3, "within
1 s") without sleeping. `serving` gives every in-process app one (`client.clock`)."""

from __future__ import annotations


class ManualClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds
