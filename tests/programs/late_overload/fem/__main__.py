"""Assemble in single, then double precision."""

import warp as wp

from fem.assembler import Assembler


def main():
    wp.init()
    assembler = Assembler(8)
    print("f32", assembler.assemble().numpy()[0])
    assembler.enable_double()
    print("f64", assembler.assemble().numpy()[0])


if __name__ == "__main__":
    main()
