"""The exit-code contract of parlab's Python commands (README, "Exit codes"), in one place:
0 done; 1 only what the command itself decides (compare: slower beyond the gate; the ratios script:
a stream-peers record failed); 2 bad input or an environment error, naming the argument, path or
record; 130 interrupted; 3 an internal error, one line naming it and no traceback. A traceback
would exit 1, which a CI gate or `git bisect run` reads as "slower" or "failed"."""
from __future__ import annotations

import signal
import sys
from typing import Callable

from analysis.figures.load import InputError


def _terminated(signum, frame):
    raise KeyboardInterrupt  # SIGTERM as SIGINT: the writers clean up on the way out (exit 130)


def run_command(name: str, body: Callable[[], int]) -> int:
    """body()'s exit code, or the contract's for what it raised, with one line on stderr. SIGTERM
    interrupts as SIGINT does (Python's default would end the process without removing a
    temporary file or a half-made report)."""
    try:
        signal.signal(signal.SIGTERM, _terminated)
        return body()
    except InputError as e:
        print(f"{name}: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{name}: interrupted", file=sys.stderr)
        return 130
    except ModuleNotFoundError as e:  # a library the command needs is not installed: the environment's
        print(f"{name}: needs the Python module '{e.name}', which this interpreter ({sys.executable}) lacks; "
              "scripts/install-deps.sh installs it", file=sys.stderr)
        return 2
    except OSError as e:  # a file or directory the command could not write: the environment's
        print(f"{name}: cannot write {e.filename}: {e.strerror}", file=sys.stderr)
        return 2
    except Exception as e:  # noqa: BLE001 -- the contract above: never a traceback, never exit 1
        print(f"{name}: internal error, please report: {type(e).__name__}: {e}", file=sys.stderr)
        return 3
