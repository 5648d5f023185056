"""Differentiable mesh operators.

Record the operators on a ``wp.Tape`` with vertex arrays created with ``requires_grad=True``
to get gradients of any loss with respect to the vertex positions.
"""

from meshlib.ops import smooth_vertices, vertex_normals

__all__ = ["smooth_vertices", "vertex_normals"]
