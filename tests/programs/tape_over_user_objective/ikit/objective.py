"""The objective a user subclasses: the optimizer differentiates its residuals on a tape."""


class Objective:
    """Writes ``residual_count()`` residuals at ``offset`` of the optimizer's residual array."""

    def residual_count(self) -> int:
        raise NotImplementedError

    def compute_residuals(self, q, residuals, offset):
        raise NotImplementedError
