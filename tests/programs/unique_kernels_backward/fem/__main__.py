"""Assemble first- and second-order elements."""

import warp as wp

from fem.assemble import assemble


def main():
    wp.init()
    wp.set_device("cpu")
    for order in (1, 2):
        print(order, assemble(order, 16))


if __name__ == "__main__":
    main()
