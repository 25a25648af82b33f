"""A kernel that races: every chunk adds its items to one counter shared by the whole module,
reading it, giving the other threads a turn, then writing it back. Concurrent chunks lose each
other's updates, so the total changes from run to run; one worker gets the exact count. Worker
processes each have a counter of their own, so there the parent's counter stays 0."""

import time

counter = [0]


def chunk(lo, hi, seed):
    for i in range(lo, hi):
        seen = counter[0]
        if i % 16 == 0:
            time.sleep(0)  # a switch between the read and the write, as a preemption would make
        counter[0] = seen + 1
    return 0


def combine(partials):
    total = counter[0]
    counter[0] = 0
    return total
