"""The served UI's login refuses a name for a while after repeated wrong passwords, whatever comes next (#46 5h)."""
from __future__ import annotations

from ui.login import Login


def test_wrong_passwords_lock_the_name_out_for_a_while():
    now = [0.0]
    login = Login("ann", "s3cret", attempts=3, window=60, lockout=30, clock=lambda: now[0])
    assert login("ann", "s3cret")
    assert not any(login("ann", f"guess{i}") for i in range(3))
    assert not login("ann", "s3cret")  # locked out: even the right password waits
    now[0] = 31
    assert login("ann", "s3cret")


def test_failures_spread_beyond_the_window_do_not_lock():
    now = [0.0]
    login = Login("ann", "s3cret", attempts=3, window=60, lockout=30, clock=lambda: now[0])
    for i in range(6):
        now[0] = i * 40.0
        assert not login("ann", "nope")
    assert login("ann", "s3cret")


def test_guessing_across_many_names_locks_every_name():
    now = [0.0]
    login = Login("ann", "s3cret", attempts=2, window=60, lockout=30, clock=lambda: now[0])
    for i in range(20):
        login(f"user{i}", "x")
    assert not login("ann", "s3cret")
    now[0] = 31
    assert login("ann", "s3cret")
