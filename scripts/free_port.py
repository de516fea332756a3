#!/usr/bin/env python3
"""Prints a free TCP port on 127.0.0.1 (importable as `free_port()`), for the scripts that start
servers on loopback: scripts/load-test.sh and bench/scale/scale_run.py.

The port is drawn at random below the range the kernel hands to outgoing connections
(/proc/sys/net/ipv4/ip_local_port_range), as the test support's freeLocalPort() does: a port
bound to 0 comes from that range, where any connection opened between the probe and the
server's own bind (a client, a scrape) can take it first."""

import random
import socket

LOWEST = 10000


def ephemeral_ports_start():
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def bindable(port):
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return 0
        return s.getsockname()[1]


def free_port():
    end = ephemeral_ports_start()
    if end - LOWEST >= 1000:
        for _ in range(100):
            port = bindable(random.randrange(LOWEST, end))
            if port:
                return port
    return bindable(0)


if __name__ == "__main__":
    print(free_port())
