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


# The signal a command received, if any: a library may catch the KeyboardInterrupt it raises and
# carry on (matplotlib's rc validation catches BaseException while it reads its style library at
# import), so whether the command was interrupted is read from here, not from the exception alone.
_received: list[int] = []


def _interrupted(signum, frame):
    _received.append(signum)
    raise KeyboardInterrupt  # SIGTERM as SIGINT: the writers clean up on the way out (exit 130)


def say(line: str) -> None:
    """A message on stderr, its control characters shown, never obeyed (untrusted.visible): it
    quotes names and paths from files that may come from anyone."""
    print(visible(line), file=sys.stderr)


def run_command(name: str, body: Callable[[], int]) -> int:
    """body()'s exit code, or the contract's for what it raised, with one line on stderr. SIGTERM
    interrupts as SIGINT does (Python's default would end the process without removing a
    temporary file or a half-made report); a command that received either exits 130 even where a
    library swallowed the interruption and the body ran on to its end."""
    try:
        _received.clear()
        signal.signal(signal.SIGTERM, _interrupted)
        signal.signal(signal.SIGINT, _interrupted)
        code = body()
        if _received:  # interrupted, though something on the way swallowed the KeyboardInterrupt
            raise KeyboardInterrupt
        return code
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
