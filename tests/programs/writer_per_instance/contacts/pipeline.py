"""A collision pipeline that hands the narrow phase a writer of its own and its own struct."""

from typing import Any

import warp as wp

from contacts.narrow import NarrowPhase


@wp.struct
class PipelineData:
    count: wp.array(dtype=wp.int32)
    normal: wp.array(dtype=wp.vec3)


@wp.func
def write_pipeline(data: Any, tid: int):
    wp.atomic_add(data.count, 0, 1)
    data.normal[tid] = wp.vec3(0.0, 0.0, 1.0)


class Pipeline:
    def __init__(self):
        self.narrow = NarrowPhase(writer=write_pipeline)

    def collide(self, n: int):
        data = PipelineData()
        data.count = wp.zeros(1, dtype=wp.int32, device="cpu")
        data.normal = wp.zeros(n, dtype=wp.vec3, device="cpu")
        self.narrow.launch_custom_write(data, n)
        return data
