"""autograd's containers and type tests.  Containers of tensors are plain Python
containers under tapegen; ``isinstance`` and ``type`` look at the array behind a
tensor, as autograd's look through its boxes."""

import builtins

from autograd._values import plain

tuple = builtins.tuple
list = builtins.list
dict = builtins.dict


def isinstance(value, types):
    return builtins.isinstance(plain(value), types)


def type(value):
    return builtins.type(plain(value))
