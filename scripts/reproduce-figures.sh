#!/usr/bin/env bash
# Draws every committed run's figures and report.html again from its results.json, into
# build/reproduced/<machine>/<run>/ (results/ tracks data only). scripts/reproduce_figures.py
# does the work; --help lists the options (--reference, --headlines, --out, --jobs, RUN ...).
set -euo pipefail
# Debian's interpreter, where scripts/install-deps.sh put matplotlib (a pyenv or venv python3
# earlier on PATH would not have it); PARLAB_PYTHON chooses another, as scripts/run-tests.sh does.
exec "${PARLAB_PYTHON:-/usr/bin/python3}" "$(dirname "$0")/reproduce_figures.py" "$@"
