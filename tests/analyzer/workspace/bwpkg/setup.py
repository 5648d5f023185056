from setuptools import setup
setup(name="bwpkg")
