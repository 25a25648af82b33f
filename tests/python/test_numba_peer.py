"""The Numba peer's prange kernel counts every cut of the stream as its serial kernel does (the
C++ tests compare both with the canonical count from 0; this covers odd starts and ends)."""
import os
import sys

import pytest

pytest.importorskip("numba")
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "embed", "workloads"))
import parlab_numba  # noqa: E402

U = parlab_numba.U


@pytest.mark.parametrize("begin", [0, 1, 2, 3, 7, 8])
def test_prange_equals_serial_for_every_cut(begin):
    for end in range(begin, begin + 41, 3):
        assert parlab_numba.hits_points_prange(U(9), U(begin), U(end)) == \
            parlab_numba.hits_points(U(9), U(begin), U(end)), (begin, end)
