"""How numpy's API on tensors maps to ``ir`` primitives: Complex numbers and np.fft: real, imag, conj, angle and the transforms."""

FUNCTIONS = {}
UFUNCS = {}
