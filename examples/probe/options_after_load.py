"""Options set after the first load: the module is rebuilt with a new hash each time (3 hashes)."""

import warp as wp


@wp.kernel
def scale(a: wp.array(dtype=float), s: float):
    i = wp.tid()
    a[i] = a[i] * s


def main():
    a = wp.zeros(16, dtype=float, device="cpu")
    wp.launch(scale, dim=16, inputs=[a, 2.0], device="cpu")
    wp.set_module_options({"max_unroll": 8})  # after load: new hash, rebuild
    wp.launch(scale, dim=16, inputs=[a, 2.0], device="cpu")
    wp.set_module_options({"fast_math": True})  # again: a third hash
    wp.launch(scale, dim=16, inputs=[a, 2.0], device="cpu")
    wp.synchronize()


if __name__ == "__main__":
    main()
