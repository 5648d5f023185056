import warp as wp

from taper.model import Model


def main():
    model = Model(8)
    for _ in range(3):
        tape = wp.Tape()
        with tape:
            model.forward()
        tape.backward(model.loss)
    model.show()


if __name__ == "__main__":
    main()
