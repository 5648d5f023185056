"""A tape over physics says nothing about rendering (WCT010 flags render.py).

Run from examples/lint: python -m unused_backward
"""
