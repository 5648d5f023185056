"""Ground contact, with a restitution that is annealed over the run."""

import warp as wp


@wp.kernel
def count_below(x: wp.array(dtype=wp.vec3), n: wp.array(dtype=int)):
    i = wp.tid()
    if x[i][1] < 0.0:
        wp.atomic_add(n, 0, 1)


def make_ground_contact(restitution: float):
    # expect WCT003: World.step() passes a restitution that shrinks every step; it is captured
    # as a constant, so each step gives sim.contacts a new hash and builds it again.
    @wp.kernel
    def ground(x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3)):  # expect: WCT003
        i = wp.tid()
        if x[i][1] < 0.0:
            x[i] = wp.vec3(x[i][0], 0.0, x[i][2])
            v[i] = wp.vec3(v[i][0], -v[i][1] * restitution, v[i][2])

    return ground
