import warp as wp

from bwpkg import advect

if __name__ == "__main__":
    advect(wp.zeros(8, dtype=float))
