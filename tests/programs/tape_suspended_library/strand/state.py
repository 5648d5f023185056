"""The tape pause the solver's forward work runs under."""

from contextlib import contextmanager

import warp as wp


@contextmanager
def suspended_tape():
    """Pause the active ``wp.Tape`` (if any) inside the block; yields it."""
    runtime = wp._src.context.runtime
    tape, runtime.tape = runtime.tape, None
    try:
        yield tape
    finally:
        runtime.tape = tape
