import warp as wp

from tiles.sim import Sim


def main():
    x = wp.ones(16, dtype=float, device="cpu")
    sim = Sim()
    sim.step(x)
    sim.add_size(16)
    sim.step(x)
    print(x.numpy()[0])


if __name__ == "__main__":
    main()
