"""The served UI's login (RAGQA_UI_AUTH), with failed attempts limited: after `attempts` wrong passwords for a user name
within `window` seconds every attempt for it is refused for `lockout` seconds, and after ten times as many for any name,
every attempt is, so a password cannot be guessed at the server's speed. Gradio calls it with the name and password."""
from __future__ import annotations

import hmac
import threading
import time
from collections import defaultdict, deque


class Login:
    def __init__(self, user: str, password: str, attempts: int = 5, window: float = 300.0, lockout: float = 60.0,
                 clock=time.monotonic):
        self._user, self._password = user, password
        self._attempts, self._window, self._lockout, self._clock = attempts, window, lockout, clock
        self._failed: dict[str, deque] = defaultdict(deque)  # user name ("" for all) -> times of failed attempts
        self._locked: dict[str, float] = {}  # user name -> locked until
        self._lock = threading.Lock()

    def __call__(self, user: str, password: str) -> bool:
        now = self._clock()
        with self._lock:
            if any(self._locked.get(key, 0) > now for key in (user, "")):
                return False  # refused unchecked, right or wrong, until the lock-out ends
            good = hmac.compare_digest(user.encode(), self._user.encode()) & hmac.compare_digest(
                password.encode(), self._password.encode())
            if good:
                self._failed.pop(user, None)
                return True
            for key, limit in ((user, self._attempts), ("", self._attempts * 10)):
                failed = self._failed[key]
                failed.append(now)
                while failed and failed[0] <= now - self._window:
                    failed.popleft()
                if len(failed) >= limit:
                    self._locked[key] = now + self._lockout
                    failed.clear()
            return False
