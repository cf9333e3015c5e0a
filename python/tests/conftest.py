import os
import sys

# The kernels module beside the tests.
sys.path.insert(0, os.path.dirname(__file__))
