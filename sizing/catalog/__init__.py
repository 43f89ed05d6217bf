"""Records in: ``data/`` read with line numbers, validated by the schema, cross-referenced into a ``Catalog``."""
