"""Softmax attention weights, forward only."""
