#!/usr/bin/env python3
"""A delayed link in user space, for scripts/sim-cluster.sh where the kernel has no netem qdisc.

  sim-wire.py --ns-a NS --dev-a DEV --ns-b NS --dev-b DEV --delay-us D [--rate-bps R] --ready FILE

Creates TAP device DEV-A inside network namespace NS-A and DEV-B inside NS-B (each created from
within its namespace, so neither ever exists in the root one), writes FILE once both exist, and
then forwards every Ethernet frame read from one TAP to the other, in both directions. A frame from
A (the host) to B (the switch) is written no earlier than D microseconds after it was read; with a
rate, it also waits for the frames before it to be serialised (len * 8 / R seconds each), as on a
link of R bit/s. Frames from B to A pass at once: the delay and rate are the sending host's egress,
as tc netem on the host's eth0 would be, so between two hosts each direction is delayed once (one
way D, a round trip 2D) although a frame crosses two wires.

What it models: a fixed one-way delay plus serialisation, frames in order, no loss, no jitter
model. Its own cost (a read, a wakeup, a write: tens of microseconds in Python on a loaded machine)
adds to the delay; sim-cluster.sh's users measure it, never assume it away.

Bounded: it exits when a TAP goes away (a read or write answers that the device is gone), when
either namespace's /run/netns file is removed, or on SIGTERM/SIGINT (sim-cluster.sh's `down` and
its trap send one). Its TAPs are not persistent: they vanish with the process.
Standard library only (ctypes for setns and prctl)."""
import argparse
import collections
import ctypes
import errno
import fcntl
import os
import select
import signal
import struct
import sys
import time

CLONE_NEWNET = 0x40000000
TUNSETIFF = 0x400454CA
IFF_TAP = 0x0002
IFF_NO_PI = 0x1000
PR_SET_TIMERSLACK = 29
# A direction's queue holds at most this many bytes; beyond it the wire stops reading that TAP, so
# the kernel's own TAP queue (1000 frames) fills and drops, as a NIC's ring would. At 50 us and
# 10 Gbit/s the link holds 62.5 kB in flight, so the bound is reached only by a stalled wire.
QUEUE_BYTES = 8 << 20
GONE = (errno.EBADFD, errno.ENODEV, errno.ENXIO, errno.EBADF)

libc = ctypes.CDLL(None, use_errno=True)


def send(dst, frame):
    """Writes one frame to the TAP dst: False when dst's device is gone (the wire then ends), True
    otherwise. EIO (the receiving device is down: a link taken down), EAGAIN and ENOBUFS lose the
    frame, as a cable whose far end is unplugged or whose queue is full does."""
    try:
        os.write(dst, frame)
    except OSError as e:
        if e.errno in GONE:
            return False
        if e.errno not in (errno.EIO, errno.EAGAIN, errno.ENOBUFS):
            raise
    return True


def setns(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        if libc.setns(fd, CLONE_NEWNET) != 0:
            e = ctypes.get_errno()
            raise OSError(e, f"setns({path}): {os.strerror(e)}")
    finally:
        os.close(fd)


def tap_in(ns, dev):
    """A TAP named dev, created inside namespace ns: /dev/net/tun binds the device to the network
    namespace of the process that opens it, so the process enters ns first."""
    setns(f"/run/netns/{ns}")
    fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", dev.encode(), IFF_TAP | IFF_NO_PI))
    return fd


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ns-a", required=True)
    ap.add_argument("--dev-a", required=True)
    ap.add_argument("--ns-b", required=True)
    ap.add_argument("--dev-b", required=True)
    ap.add_argument("--delay-us", type=float, required=True)
    ap.add_argument("--rate-bps", type=float, default=0.0, help="0: no serialisation")
    ap.add_argument("--ready", required=True)
    a = ap.parse_args()
    if a.delay_us < 0 or a.rate_bps < 0:
        sys.exit("sim-wire: delay and rate must be >= 0")
    return a


def raise_priority():
    """MPI ranks busy-poll their sockets; on a machine with few cores a wire of ordinary priority
    waits for their time slices (milliseconds) before it forwards a frame, and the link's delay
    would be the scheduler's. A real-time priority lets the wire run as soon as a frame or its
    due time arrives; it blocks in select() between frames, and the kernel's real-time
    throttling still bounds it. Where that is refused, the highest nice level instead."""
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(10))
        print("sim-wire: SCHED_FIFO priority 10", file=sys.stderr)
    except OSError as e:
        try:
            os.setpriority(os.PRIO_PROCESS, 0, -20)
        except OSError:
            pass
        print(f"sim-wire: no real-time priority ({e.strerror}); nice {os.getpriority(os.PRIO_PROCESS, 0)}",
              file=sys.stderr)


def open_taps(a):
    """The two TAPs, each in its namespace; then back to the namespace it started in: the wire
    itself opens no socket anywhere."""
    home = f"/proc/{os.getpid()}/ns/net"
    own = os.open(home, os.O_RDONLY)
    fa = tap_in(a.ns_a, a.dev_a)
    fb = tap_in(a.ns_b, a.dev_b)
    if libc.setns(own, CLONE_NEWNET) != 0:
        sys.exit("sim-wire: cannot return to its own network namespace")
    os.close(own)
    return fa, fb


def main():
    a = parse_args()
    # SIGTERM and SIGINT end the loop through SystemExit, so the TAPs close (and vanish) at once.
    for s in (signal.SIGTERM, signal.SIGINT):
        signal.signal(s, lambda *_: sys.exit(0))
    # The default timer slack (50 us) would let every select() oversleep by up to the delay itself.
    libc.prctl(PR_SET_TIMERSLACK, 1, 0, 0, 0)
    raise_priority()
    fa, fb = open_taps(a)
    with open(a.ready, "w") as f:
        f.write(f"{os.getpid()}\n")
    return run_wire(fa, fb, a)


def run_wire(fa, fb, a):
    """Forwards frames between the TAPs until a host or its namespace goes; fa's egress delayed
    and serialised."""
    delay_ns = int(a.delay_us * 1000)
    ns_per_byte = 8e9 / a.rate_bps if a.rate_bps else 0.0
    # Per direction: frames waiting (deliver-at ns, frame), queued bytes, and when the sender's
    # serialiser is next free. Times only grow within a direction, so each queue is in order.
    q = {fa: collections.deque(), fb: collections.deque()}
    shaped = {fa: True, fb: False}  # only the host's egress is delayed and serialised
    queued = {fa: 0, fb: 0}
    free_at = {fa: 0, fb: 0}
    other_end = {fa: fb, fb: fa}
    nsfiles = [f"/run/netns/{a.ns_a}", f"/run/netns/{a.ns_b}"]
    next_check = 0

    while True:
        now = time.monotonic_ns()
        if now >= next_check:
            if not all(os.path.exists(p) for p in nsfiles):
                return 0  # the hosts were removed: nothing left to connect
            next_check = now + 500_000_000
        # Deliver what is due.
        for src in (fa, fb):
            dq = q[src]
            while dq and dq[0][0] <= now:
                _, frame = dq.popleft()
                queued[src] -= len(frame)
                if not send(other_end[src], frame):
                    return 0
        heads = [dq[0][0] for dq in q.values() if dq]
        timeout = max(0.0, (min(heads) - time.monotonic_ns()) / 1e9) if heads else 0.5
        timeout = min(timeout, 0.5)  # the namespace check above runs at least twice a second
        readable = [fd for fd in (fa, fb) if queued[fd] < QUEUE_BYTES]
        try:
            ready, _, _ = select.select(readable, [], [], timeout)
        except InterruptedError:
            continue
        for src in ready:
            # Bounded: at most 64 frames per wakeup, so one busy direction cannot starve the other.
            for _ in range(64):
                try:
                    frame = os.read(src, 65536)
                except BlockingIOError:
                    break
                except OSError as e:
                    if e.errno in GONE:
                        return 0
                    if e.errno == errno.EIO:  # the device is down: nothing to read until it is up
                        break
                    raise
                if not frame:
                    return 0
                t = time.monotonic_ns()
                if not shaped[src]:
                    if not send(other_end[src], frame):
                        return 0
                    continue
                start = max(t, free_at[src])
                free_at[src] = start + int(len(frame) * ns_per_byte)
                q[src].append((free_at[src] + delay_ns, frame))
                queued[src] += len(frame)


if __name__ == "__main__":
    sys.exit(main())
