"""A few descent steps, then a report."""

import warp as wp

from descent import metrics
from descent.trainer import Trainer


def main():
    wp.init()
    trainer = Trainer(32)
    for _ in range(4):
        print("loss", trainer.step(0.1))
    print("max |x|, small", metrics.report(trainer.x))


if __name__ == "__main__":
    main()
