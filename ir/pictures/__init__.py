"""Pictures of graphs for people: what a picture shows (``views``: boxes, edges,
clusters, the bodies of loops and branches; as DOT text), collapsed chains
(``chains``), a numeric summary (``summary``), a layout in pure Python
(``layout``), and drawing it as SVG or PNG (``render``).

``ir.graph_methods`` attaches the ``Graph`` methods they define (``to_dot``,
``summary``, ``render``, ``_repr_svg_``): ``ir.graph`` imports none of them, so
the graph stays below its pictures.
"""
