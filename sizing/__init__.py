"""GPU catalog and sizing engine: plain Python, no MkDocs or Markdown, in three floors that import downwards.

* ``sizing.catalog``: records in. ``data/`` validated into a cross-referenced ``Catalog`` (pydantic schema, YAML
  with line numbers, errors that name file, line and field, units).
* ``sizing.engine``: the physics, on plain specs and constants: weight and KV-cache bytes, fit verdicts per
  engine, link rules and collectives, the decode-speed model and its speeds on a node, training memory.
* ``sizing.views``: what the site and the command line ask of the engine: the verdict matrix, the configurator's
  offers, the guides' comparisons, the JSON API documents, the speed model's accuracy.

``python -m sizing.estimate`` is the command line.
"""
