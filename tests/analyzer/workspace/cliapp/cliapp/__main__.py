import argparse

import warp as wp

from cliapp.render import render
from cliapp.train import train


def fast(args):
    wp.config.enable_backward = False
    render(args.n)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("command", choices=["train", "render", "fast"])
    parser.add_argument("--n", type=int, default=16)
    args = parser.parse_args()
    if args.command == "train":
        train(args.n)
    elif args.command == "fast":
        fast(args)
    else:
        render(args.n)


if __name__ == "__main__":
    main()
