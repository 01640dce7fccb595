"""tracer.Module finds variables and submodules as tf.Module does: attributes in sorted
order, into lists, tuples and dicts, each once, direct attributes before submodules'."""

import numpy as np
import pytest

import tracer


class Dense(tracer.Module):
    def __init__(self, n_in, n_out, name=None):
        super().__init__(name=name)
        self.w = tracer.Variable(np.ones((n_in, n_out)), name="w")
        self.b = tracer.Variable(np.zeros(n_out), name="b")

    def __call__(self, x):
        return x @ self.w + self.b


class Net(tracer.Module):
    def __init__(self):
        super().__init__()
        self.layers = [Dense(3, 4, name="first"), Dense(4, 2, name="second")]
        self.scale = tracer.Variable(2.0, name="scale")
        self.steps = tracer.Variable(0, trainable=False, name="steps")
        self.by_name = {"z": tracer.Variable(1.0, name="z"), "a": tracer.Variable(1.0, name="a")}

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return self.scale * x


def names(variables):
    return [v.name for v in variables]


def test_variables_come_in_tf_modules_order_each_once():
    net = Net()
    net.alias = net.layers[0].w  # met again: listed once
    # own attributes sorted (alias, by_name's a and z, layers: modules, scale, steps),
    # then each submodule's own (b before w) in the order met, the first's w already listed
    assert names(net.variables) == ["w", "a", "z", "scale", "steps", "b", "b", "w"]
    assert names(net.trainable_variables) == ["w", "a", "z", "scale", "b", "b", "w"]
    assert names(net.non_trainable_variables) == ["steps"]
    assert [m.name for m in net.submodules] == ["first", "second"]


def test_nested_submodules_are_found_depth_first_after_direct_attributes():
    outer = tracer.Module(name="outer")
    middle = tracer.Module(name="middle")
    inner = tracer.Module(name="inner")
    outer.m = middle
    middle.i = inner
    inner.v = tracer.Variable(1.0, name="v")
    outer.u = tracer.Variable(1.0, name="u")
    assert [m.name for m in outer.submodules] == ["middle", "inner"]
    assert names(outer.variables) == ["u", "v"]


def test_a_module_trains_with_a_tape_and_an_optimizer():
    net = Net()
    x = np.arange(6.0).reshape(2, 3)
    optimizer = tracer.optimizers.SGD(1e-5)
    with tracer.GradientTape() as tape:
        loss = np.sum(net(x) ** 2)
    gradients = tape.gradient(loss, net.trainable_variables)
    used = [(g, v) for g, v in zip(gradients, net.trainable_variables) if v.name not in "az"]
    assert all(g is not None for g, _ in used)
    assert all(g is None for g, v in zip(gradients, net.trainable_variables) if v.name in "az")
    optimizer.apply_gradients(used)
    with tracer.GradientTape():
        assert float(np.sum(net(x) ** 2)) < float(loss)


def test_default_names_and_bad_names():
    assert Net().name == "net"
    assert tracer.Module().name == "module"
    with pytest.raises(ValueError, match="not a valid module name"):
        tracer.Module(name="has space")
