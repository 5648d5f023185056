"""A small memoizing decorator (a dict keyed by the arguments)."""

import functools


def memoize(factory):
    cache = {}

    @functools.wraps(factory)
    def wrapper(*args):
        if args not in cache:
            cache[args] = factory(*args)
        return cache[args]

    return wrapper
