"""GPU catalog and sizing engine: plain Python, no MkDocs or Markdown.

Data flows one way: ``load_catalog`` validates ``data/`` into a ``Catalog``; the calculation modules
(``memory``, ``fit``, ``throughput``, ``collectives``) take catalog records and return plain results;
``matrix`` runs them once for every model, precision, context preset and node. ``decode`` is the calibrated
decode-speed model (plain records in, ``DecodeEstimate`` out); ``scenarios`` resolves catalog ids or inline
figures into its records, ``estimate`` is its command line and ``accuracy`` checks it against
``data/measurements.yml``.
"""
