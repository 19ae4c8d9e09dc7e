"""Serving on this machine only: the loopback host every test server binds, a free port on it, and
how often a stopping server is polled."""

from __future__ import annotations

import socket

#: Host every test server binds: loopback only, never reachable from outside the machine.
HOST = "127.0.0.1"


#: How often the scripted server's loop looks for a shutdown request: the stdlib's 0.5 s
#: would add half a second to every test that closes one.
SHUTDOWN_POLL_SECONDS = 0.05


def free_port() -> int:
    """A TCP port on 127.0.0.1 free at the time of asking."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]
