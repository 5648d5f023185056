"""Applies every penalty term of a copied table each step."""

import warp as wp

from fit.terms import TERMS


class Trainer:
    def __init__(self):
        self.terms = list(TERMS)

    def step(self, x, loss):
        loss.zero_()
        for kernel, weight in self.terms:
            wp.launch(kernel, dim=x.shape, inputs=[x, weight, loss], device="cpu")
        return float(loss.numpy()[0])
