"""``Graph``'s pictures, summary and JSON form, attached as its methods here, in one place.

The modules that draw, summarise and save graphs build on ``ir.graph``, so ``Graph``
cannot import them; importing ``ir`` imports this module, which gives ``Graph`` the
methods they define.
"""

from ir.graph import Graph
from ir.pictures.render import notebook_picture, render
from ir.pictures.summary import summary
from ir.pictures.views import to_dot
from ir.json.serialize import from_json, to_json

Graph.to_dot = to_dot
Graph.render = render
Graph._repr_svg_ = notebook_picture
Graph.summary = summary
Graph.to_json = to_json
Graph.from_json = staticmethod(from_json)
