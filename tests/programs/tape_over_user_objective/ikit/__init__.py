"""A small inverse-kinematics library: objectives the user subclasses, an optimizer that tapes them."""

from ikit.objective import Objective
from ikit.optimizer import Optimizer

__all__ = ["Objective", "Optimizer"]
