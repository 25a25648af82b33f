"""PyTorch library backend: the canonical Philox pi stream on a GPU with int64 tensors.

PyTorch has no general uint64 arithmetic, and a 32x32-bit product overflows int64, so the
products are split into 16-bit halves: every intermediate stays below 2^50, nothing wraps, and
the hit count is exactly the canonical one.
"""

import parlab_philox

M32 = 0xFFFFFFFF
M16 = 0xFFFF


def _mul32(x, c):
    """(hi32, lo32) of x * c for x < 2^32 (tensor) and c < 2^32 (int), exactly."""
    a = (x & M16) * c           # < 2^48
    b = (x >> 16) * c           # < 2^48; x*c = b*2^16 + a
    lo_sum = a + ((b & M16) << 16)  # < 2^49
    return (b >> 16) + (lo_sum >> 32), lo_sum & M32


def _square_hi_lo(x):
    """x^2 = hi*2^32 + lo for x < 2^32 with lo < 2^33 (not normalised), exactly."""
    xh, xl = x >> 16, x & M16
    cross = 2 * xh * xl         # < 2^33
    return xh * xh + (cross >> 16), xl * xl + ((cross & M16) << 16)


def _hit(x, y):
    xh, xl = _square_hi_lo(x)
    yh, yl = _square_hi_lo(y)
    return (xh + yh + ((xl + yl) >> 32)) < (1 << 32)  # x^2 + y^2 < 2^64


def hits_points(torch, dev, seed, begin, end, chunk_pairs):
    if begin >= end:
        return 0
    keys = parlab_philox.round_keys(seed)
    pair_begin, pair_end = begin >> 1, (end + 1) >> 1
    total = torch.zeros((), dtype=torch.int64, device=dev)
    for cb in range(pair_begin, pair_end, chunk_pairs):
        ce = min(cb + chunk_pairs, pair_end)
        j = torch.arange(cb, ce, dtype=torch.int64, device=dev)
        x0, x1 = j & M32, j >> 32
        x2 = torch.zeros_like(j)
        x3 = torch.zeros_like(j)
        for k0, k1 in keys:
            hi0, lo0 = _mul32(x0, parlab_philox.MUL0)
            hi1, lo1 = _mul32(x2, parlab_philox.MUL1)
            x0, x1, x2, x3 = hi1 ^ x1 ^ k0, lo1, hi0 ^ x3 ^ k1, lo0
        first, second = _hit(x0, x1), _hit(x2, x3)
        total += first.sum() + second.sum()
        if cb == pair_begin and begin & 1:
            total -= first[0].to(torch.int64)
        if ce == pair_end and end & 1:
            total -= second[-1].to(torch.int64)
    return int(total.item())


CHUNK_PAIRS = 1 << 24


class TorchPi:
    def __init__(self, seed, samples, device, unavailable):
        import torch
        if not torch.cuda.is_available():
            raise unavailable("PyTorch sees no CUDA device (torch.cuda.is_available() is False)")
        if device >= torch.cuda.device_count():
            raise unavailable(f"PyTorch sees {torch.cuda.device_count()} CUDA device(s); "
                              f"device {device} does not exist")
        self.torch, self.dev = torch, torch.device("cuda", device)
        self.seed, self.samples = seed, samples
        hits_points(torch, self.dev, seed, 0, 4099, CHUNK_PAIRS)  # warm up untimed
        torch.cuda.synchronize(self.dev)

    def run(self):
        return hits_points(self.torch, self.dev, self.seed, 0, self.samples, CHUNK_PAIRS)

    def stats(self):
        return {}

    def close(self):
        pass
