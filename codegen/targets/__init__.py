"""Code generation targets: what a generated module is written for (numpy, the array API
standard).  ``base`` says what a target answers, one module per target answers it,
and ``registry`` finds a target by the name ``target=`` gives it."""
