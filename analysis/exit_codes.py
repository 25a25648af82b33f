"""The exit-code contract of parlab's Python commands (README, "Exit codes"), in one place:
0 done; 1 only what the command itself decides (compare: slower beyond the gate; the ratios script:
a stream-peers record failed); 2 bad input or an environment error, naming the argument, path or
record; 130 interrupted; 3 an internal error, one line naming it and no traceback; 5 compare's gate
judged nothing (NOTHING_JUDGED). A traceback would exit 1, which a CI gate or `git bisect run`
reads as "slower" or "failed"."""
from __future__ import annotations

import signal
import sys
from typing import Callable

from analysis.read import InputError
from analysis.untrusted import visible

# compare --fail-if-slower where no record could be judged (too few repetitions on every one):
# neither 0, which would pass a gate that looked at nothing, nor 1, which says "slower". 4 is
# `parlab run`'s (its report failed), so this is the next free code.
NOTHING_JUDGED = 5


def _terminated(signum, frame):
    raise KeyboardInterrupt  # SIGTERM as SIGINT: the writers clean up on the way out (exit 130)


def say(line: str) -> None:
    """A message on stderr, its control characters shown, never obeyed (untrusted.visible): it
    quotes names and paths from files that may come from anyone."""
    print(visible(line), file=sys.stderr)


def run_command(name: str, body: Callable[[], int]) -> int:
    """body()'s exit code, or the contract's for what it raised, with one line on stderr. SIGTERM
    interrupts as SIGINT does (Python's default would end the process without removing a
    temporary file or a half-made report)."""
    try:
        signal.signal(signal.SIGTERM, _terminated)
        return body()
    except InputError as e:
        say(f"{name}: {e}")
        return 2
    except KeyboardInterrupt:
        say(f"{name}: interrupted")
        return 130
    except ModuleNotFoundError as e:  # a library the command needs is not installed: the environment's
        say(f"{name}: needs the Python module '{e.name}', which this interpreter ({sys.executable}) lacks; "
            "scripts/install-deps.sh installs it")
        return 2
    except OSError as e:  # a file or directory the command could not write: the environment's
        say(f"{name}: cannot write {e.filename}: {e.strerror}")
        return 2
    except Exception as e:  # noqa: BLE001 -- the contract above: never a traceback, never exit 1
        say(f"{name}: internal error, please report: {type(e).__name__}: {e}")
        return 3
