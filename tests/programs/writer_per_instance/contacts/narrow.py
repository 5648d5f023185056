"""A narrow phase whose generic kernel is built per contact writer (newton's shape): the
writer's struct reaches the kernel through an `Any` parameter, and the kernel's module is
named after the writer, so each writer's kernel lives in a module of its own."""

from typing import Any

import warp as wp


@wp.struct
class WriterData:
    count: wp.array(dtype=wp.int32)
    depth: wp.array(dtype=wp.float32)


@wp.func
def write_simple(data: Any, tid: int):
    wp.atomic_add(data.count, 0, 1)
    data.depth[tid] = float(tid)


def make_narrow_kernel(writer: Any):
    # silent: WCT007 — each writer's kernel has a module of its own, which sees one struct type
    @wp.kernel(module=f"narrow_{writer.key}")
    def narrow(data: Any):
        tid = wp.tid()
        writer(data, tid)

    return narrow


class NarrowPhase:
    def __init__(self, writer: Any = None):
        self.writer = write_simple if writer is None else writer
        self.kernel = make_narrow_kernel(self.writer)

    def launch_custom_write(self, data: Any, n: int):
        wp.launch(self.kernel, dim=n, inputs=[data], device="cpu")

    def launch(self, n: int):
        data = WriterData()
        data.count = wp.zeros(1, dtype=wp.int32, device="cpu")
        data.depth = wp.zeros(n, dtype=wp.float32, device="cpu")
        self.launch_custom_write(data, n)
        return data
