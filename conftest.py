"""Settings every test shares, made before any test module imports tapegen (this file
sits at the root, where pytest puts the project itself first on the import path).

scipy computes on other array libraries' arrays (array-API modules call
``scipy.special`` on JAX's, PyTorch's and ``array_api_strict``'s) only when
SCIPY_ARRAY_API=1 is set before scipy is first imported, and tapegen imports
scipy.  So this file sets it first, and names tapegen's warning (which would
import tapegen) only once it has.
"""

import os

os.environ["SCIPY_ARRAY_API"] = "1"


def pytest_configure(config):
    config.addinivalue_line("filterwarnings", "error::tracer.GradientTapeWarning")
