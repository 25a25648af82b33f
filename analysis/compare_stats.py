"""Statistics for analysis/compare.py, without SciPy: the two-sided Mann-Whitney U test of two
sets of repetition times, the Moses confidence interval of their ratio, and a pair's verdict.

U counts the pairs (BASE_i, NEW_j) with NEW_j > BASE_i (ties count half). The exact null
distribution (no ties, n*m <= EXACT_MAX) is the coefficient list of the Gaussian binomial
[n+m choose n]_q; otherwise the normal approximation with tie and continuity correction. Both
give the p-values scipy.stats.mannwhitneyu gives (tests/python/test_compare.py checks).
The (1 - alpha) interval of NEW/BASE inverts the same test on log times: with k the largest
integer such that P(U <= k - 1) < alpha/2, it runs from the k-th smallest to the k-th largest of
the n*m pairwise ratios NEW_j / BASE_i (None when k = 0: too few repetitions for any interval),
selected without making the n*m of them (_kth_difference), so memory stays O(n + m).
A pair the test cannot judge at all (too few repetitions, or distinct ones, for p to reach alpha)
is "undecided", never "same", with the repetitions per side that would decide it at the effect it
shows (reps_to_decide).
"""
from __future__ import annotations

import math
import struct
from functools import lru_cache

EXACT_MAX = 2500  # n*m up to which the exact U distribution is used


@lru_cache(maxsize=None)
def u_counts(n: int, m: int) -> tuple:
    """How many of the C(n+m, n) orderings of two samples give U = 0..n*m (no ties): the
    coefficients of the Gaussian binomial [n+m choose n]_q = prod_i (1 - q^(m+i)) / (1 - q^i)."""
    top = n * m
    c = [1] + [0] * top
    for i in range(1, n + 1):
        for k in range(top, m + i - 1, -1):
            c[k] -= c[k - m - i]
        for k in range(i, top + 1):
            c[k] += c[k - i]
    return tuple(c)


def _u_cdf(n: int, m: int, u: float) -> float:
    """P(U <= u) under the null hypothesis, exact."""
    c = u_counts(n, m)
    k = math.floor(u)
    return 0.0 if k < 0 else sum(c[:k + 1]) / sum(c)


def _ranks(values: list) -> tuple[list, list]:
    """Average ranks (1-based) of values, and the sizes of the groups of ties."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks, ties, i = [0.0] * len(values), [], 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        if j > i:
            ties.append(j - i + 1)
        i = j + 1
    return ranks, ties


def mann_whitney(base: list, new: list) -> dict:
    """Two-sided Mann-Whitney U test. u counts the pairs where NEW > BASE (ties count half):
    above n*m/2 NEW tends to be larger (slower, for times)."""
    n, m = len(base), len(new)
    ranks, ties = _ranks(list(base) + list(new))
    u = sum(ranks[n:]) - m * (m + 1) / 2
    mu = n * m / 2
    if not ties and n * m <= EXACT_MAX:
        p = min(1.0, 2 * min(_u_cdf(n, m, u), 1 - _u_cdf(n, m, u - 1)))
        return {"u": u, "p": p, "method": "exact"}
    big_n = n + m
    var = n * m / 12 * ((big_n + 1) - sum(t ** 3 - t for t in ties) / (big_n * (big_n - 1)))
    if var <= 0:
        return {"u": u, "p": 1.0, "method": "normal"}
    z = max(0.0, abs(u - mu) - 0.5) / math.sqrt(var)
    return {"u": u, "p": min(1.0, math.erfc(z / math.sqrt(2))), "method": "normal"}


def min_p(n: int, m: int) -> float:
    """The smallest two-sided p the U test can give for n and m repetitions."""
    # 2 / C(n+m, n) is 0.0 in a double once C(n+m, n) passes e^760 (2e-330 rounds to 0); the
    # exact binomial of 10^5 repetitions a side takes a third of a second, the log-gamma bound none.
    if math.lgamma(n + m + 1) - math.lgamma(n + 1) - math.lgamma(m + 1) > 760:
        return 0.0
    return min(1.0, 2 / math.comb(n + m, n))


def reps_needed(alpha: float) -> int:
    """Repetitions per side from which the U test can reach p < alpha."""
    k = 1
    while min_p(k, k) >= alpha:
        k += 1
    return k


def _p_at(k: int, u: int) -> float:
    """The two-sided p of U = u for k repetitions a side without ties, as mann_whitney gives it."""
    top = k * k
    if top <= EXACT_MAX:
        return min(1.0, 2 * _u_cdf(k, k, min(u, top - u)))
    z = max(0.0, abs(u - top / 2) - 0.5) / math.sqrt(top * (2 * k + 1) / 12)
    return min(1.0, math.erfc(z / math.sqrt(2)))


# reps_to_decide looks no further: beyond this many repetitions a side the effect is too small to
# be worth measuring (and the normal approximation would be asked about a tiny shift).
MOST_REPS = 10_000


def reps_to_decide(u: float, n: int, m: int, alpha: float) -> int | None:
    """Repetitions per side at which the U test, at the effect size these samples show, would
    reach p < alpha; None where the samples show no order (U = n*m/2) or it takes more than
    MOST_REPS.

    Method: the effect size is the probability of superiority A = U / (n m), the U test's own
    measure (the share of pairs where NEW is slower, ties counting half). With k repetitions a
    side at that effect, U is A k^2 in expectation; the estimate is the smallest k, from
    reps_needed(alpha) on, whose two-sided p at that U (rounded towards k^2 / 2, the conservative
    side; exact distribution while k^2 <= EXACT_MAX, else the normal approximation, as
    mann_whitney) is below alpha. A complete separation (A = 0 or 1) gives reps_needed(alpha),
    the fewest with which any verdict is possible. It is the expected U, not a power
    calculation: at that many repetitions a verdict is about as likely as not, and a true effect
    smaller than the observed one (few repetitions overstate it) needs more."""
    if n * m == 0 or abs(u / (n * m) - 0.5) < 1e-12:
        return None
    a = u / (n * m)
    for k in range(reps_needed(alpha), MOST_REPS + 1):
        expected = a * k * k
        at = math.floor(expected + 1e-9) if a > 0.5 else math.ceil(expected - 1e-9)
        if _p_at(k, at) < alpha:
            return k
    return None


def _norm_quantile(q: float) -> float:
    lo, hi = -40.0, 40.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if 0.5 * math.erfc(-mid / math.sqrt(2)) < q:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def ratio_interval(base: list, new: list, alpha: float):
    """(lo, hi) of the (1 - alpha) Moses confidence interval of NEW/BASE (a shift of log times),
    or None where the repetitions are too few for any finite interval."""
    n, m = len(base), len(new)
    top = n * m
    if top == 0:
        return None
    if top <= EXACT_MAX:
        c = u_counts(n, m)
        total, cum, k = sum(c), 0, 0
        while k < top and (cum + c[k]) / total < alpha / 2:  # P(U <= k) < alpha/2, so k + 1 is allowed
            cum += c[k]
            k += 1
    else:
        k = math.floor(top / 2 - _norm_quantile(1 - alpha / 2) * math.sqrt(top * (n + m + 1) / 12))
    if k < 1:
        return None
    la, lb = sorted(math.log(a) for a in base), sorted(math.log(b) for b in new)
    return math.exp(_kth_difference(la, lb, k)), math.exp(_kth_difference(la, lb, top - k + 1))


def _prefixes_at_most(la: list, lb: list, v: float) -> list:
    """Per row i, how many of the differences lb[j] - la[i] (as floats) are <= v, la and lb
    sorted. A rounded difference is monotone in each operand, so the j that count in row i are a
    prefix of lb, one no shorter than row i - 1's: one pass of two pointers, O(n + m)."""
    m, p, out = len(lb), 0, []
    for a in la:
        while p < m and lb[p] - a <= v:
            p += 1
        out.append(p)
    return out


# _kth_difference sorts the differences left between its bounds once they are this many per
# repetition or fewer: then a sort is cheaper than more passes.
GATHER_PER_REP = 4


def _ordinal(x: float) -> int:
    """An integer of x's place among the doubles: consecutive doubles, consecutive integers; 0.0
    and -0.0 alike."""
    i = struct.unpack("<q", struct.pack("<d", x))[0]
    return i if i >= 0 else -(i & 0x7FFF_FFFF_FFFF_FFFF)


def _of_ordinal(o: int) -> float:
    return struct.unpack("<d", struct.pack("<q", o if o >= 0 else -o | -0x8000_0000_0000_0000))[0]


def _kth_difference(la: list, lb: list, k: int) -> float:
    """The k-th smallest (1-based) of the n*m differences lb[j] - la[i], la and lb sorted: the
    value sorted(b - a for a in la for b in lb)[k - 1] is, found without making the n*m of them
    (10^4 repetitions a side would be 10^8 floats, gigabytes). A bisection keeps
    count(lo) < k <= count(hi) (count(x): how many differences are <= x, _prefixes_at_most); it
    halves the doubles between lo and hi, not the distance, so it ends within 64 steps even
    where many differences tie (identical repetitions: a tie at 0 would take a thousand halvings
    of the distance). Once few differences lie in (lo, hi] they are made and sorted; where lo
    and hi are adjacent doubles, every difference in (lo, hi] is hi. Each step is O(n + m); it
    takes about 20 of them."""
    lo = math.nextafter(lb[0] - la[-1], -math.inf)  # below every difference: count 0 < k
    hi = lb[-1] - la[0]  # the largest difference: count n*m >= k
    below, within = 0, len(la) * len(lb)  # count(lo), and count(hi) - count(lo)
    while within > GATHER_PER_REP * (len(la) + len(lb)):
        o_lo, o_hi = _ordinal(lo), _ordinal(hi)
        if o_hi - o_lo < 2:
            return hi
        mid = _of_ordinal((o_lo + o_hi) // 2)
        c = sum(_prefixes_at_most(la, lb, mid))
        if c >= k:
            hi, within = mid, c - below
        else:
            lo, below, within = mid, c, within + below - c
    start, stop = _prefixes_at_most(la, lb, lo), _prefixes_at_most(la, lb, hi)
    left = sorted(b - a for a, p, q in zip(la, start, stop) for b in lb[p:q])
    return left[k - below - 1]


def median(xs: list) -> float:
    s = sorted(xs)
    h = len(s) // 2
    return s[h] if len(s) % 2 else (s[h - 1] + s[h]) / 2


def compare_samples(base: list, new: list, alpha: float, threshold: float) -> dict:
    """Every figure of one matched pair of repetition-time samples, and the verdict.

    "significant" needs three things, so that a verdict never rests on the test alone:
      - p < alpha (the two-sided U test);
      - the (1 - alpha) interval of the ratio excludes 1 on the side the U statistic points to
        (without ties the two agree; with ties, the normal approximation can reject while the
        interval still spans 1, and then the data have not decided);
      - enough distinct repetition times on each side for the test to reach alpha at all:
        repeated values are ties, not evidence, so a million identical repetitions count as one
        (a timer of coarse resolution, or a copied record, must not make p vanish)."""
    ratio = median(new) / median(base)
    test = mann_whitney(base, new)
    ci = ratio_interval(base, new, alpha)
    smallest = min_p(len(base), len(new))
    distinct = (len(set(base)), len(set(new)))
    too_few_distinct = min_p(*distinct) >= alpha
    direction = (test["u"] > len(base) * len(new) / 2) - (test["u"] < len(base) * len(new) / 2)
    excludes_one = bool(ci) and ((direction > 0 and ci[0] > 1) or (direction < 0 and ci[1] < 1))
    significant = test["p"] < alpha and excludes_one and not too_few_distinct
    verdict = "same"
    if significant and direction > 0 and ratio > 1 + threshold:
        verdict = "slower"
    elif significant and direction < 0 and ratio < 1 - threshold:
        verdict = "faster"
    too_few = smallest >= alpha or too_few_distinct
    if too_few:
        verdict = "undecided"  # the test cannot judge: never "same", whatever the ratio
    out = {"time_ratio": ratio, "change_pct": (ratio - 1) * 100, "ci": list(ci) if ci else None,
           "p_value": test["p"], "test": test["method"], "u": test["u"], "significant": significant,
           "direction": direction, "min_p": smallest, "too_few_reps": too_few, "verdict": verdict,
           "reps_to_decide": reps_to_decide(test["u"], len(base), len(new), alpha) if too_few else None}
    if too_few:
        k = out["reps_to_decide"]
        decide = (f"about {k} per side needed at the observed effect" if k else
                  f"no order seen at all; {reps_needed(alpha)} per side needed for any verdict")
        if smallest >= alpha:
            out["warning"] = (f"too few repetitions to tell: {len(base)} against {len(new)}, the smallest p the U "
                              f"test can give is {smallest:.2g}, not below alpha {alpha:g}; {decide}")
        else:
            out["warning"] = (f"too few distinct repetition times to tell: {distinct[0]} against {distinct[1]} "
                              f"distinct values ({len(base)} against {len(new)} repetitions; repeated values are "
                              f"ties, not evidence); {decide} (distinct)")
    return out
