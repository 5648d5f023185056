"""A model that sums its energies."""


class Model:
    def __init__(self, energies: dict):
        self.energies = energies

    def fun(self):
        for energy in self.energies.values():
            energy.fun()

    def grad(self):
        for energy in self.energies.values():
            energy.grad()

    def hess(self):
        for energy in self.energies.values():
            energy.hess()
