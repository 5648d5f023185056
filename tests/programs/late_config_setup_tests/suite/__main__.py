"""Run the suite."""

from suite import harness
from suite.cases import CASES

harness.setup_tests()
harness.run(CASES)
