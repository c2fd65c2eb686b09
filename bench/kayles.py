"""Kayles values the way users write them before sprague: a memoised mex.

Usage: python3 bench/kayles.py N  -- prints G(N) for the row of N pins.
"""
import sys
from functools import lru_cache

sys.setrecursionlimit(1_000_000)


@lru_cache(maxsize=None)
def grundy(n):
    options = set()
    for k in (1, 2):
        for a in range(0, n - k + 1):
            options.add(grundy(a) ^ grundy(n - k - a))
    g = 0
    while g in options:
        g += 1
    return g


if __name__ == "__main__":
    n = int(sys.argv[1])
    for m in range(n + 1):  # bottom up, so the recursion stays shallow
        grundy(m)
    print(grundy(n))
