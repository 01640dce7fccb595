"""Each package shows its public API, not the internal modules it is built from."""

import types

import pytest

import codegen
import ir
import tracer


@pytest.mark.parametrize("package", [tracer, ir, codegen], ids=lambda p: p.__name__)
def test_dir_lists_the_public_api_and_each_name_resolves(package):
    assert dir(package) == sorted(package.__all__)
    for name in package.__all__:
        assert getattr(package, name) is not None


@pytest.mark.parametrize("package", [tracer, ir, codegen], ids=lambda p: p.__name__)
def test_internal_modules_are_loaded_but_not_listed(package):
    internal = [name for name, value in vars(package).items()
                if isinstance(value, types.ModuleType) and name not in package.__all__]
    assert internal, "the package is built from modules of its own"
    assert not set(internal) & set(dir(package))
