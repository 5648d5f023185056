"""Grade a ramp."""

import numpy as np
import warp as wp

from grading.pipeline import Pipeline


def main():
    wp.init()
    device = "cuda" if wp.is_cuda_available() else "cpu"
    img = wp.array(np.linspace(0.0, 1.0, 16, dtype=np.float32), device=device)
    print(Pipeline(device).run(img).numpy())


if __name__ == "__main__":
    main()
