"""A tiny trainer with hand-written gradients."""
