"""Turns the sizing engine's results into localized pages.

- ``page/``: one page from its source to rendered Markdown: its source and front matter, the checks every
  page passes, the sandboxed template its macro calls are compiled in, rendering;
- ``library/``: the macros writers call, one module per family, and their registry;
- ``output/``: how figures are written in each language: numbers, money, units, strings, HTML, SVG;
- ``site_data.py``: the catalog and its verdicts, loaded once per state of data/;
- ``guides.py``, ``reading.py``: the guides, their front matter and reading times;
- ``translations.py``: which translations are current, outdated, missing or orphaned;
- ``generated.py``: what the build adds to the pages written by hand: configurator pages, API files,
  per-language search indexes.

Nothing here imports MkDocs: ``hooks/page_macros.py`` hands each MkDocs event to one function of these.
"""
