"""The JSON API: ``api/catalog.json``, ``api/fit.json`` and one ``api/fit/<model>.json`` per model."""
from __future__ import annotations

from sizing.api import catalog_document, fit_document

from .context import BuildData
from .pages import compact_json


def api_files(data: BuildData) -> dict[str, str]:
    """``api/catalog.json``, ``api/fit.json`` (every model) and ``api/fit/<model>.json`` (one model each,
    what the configurator page loads)."""
    fit = fit_document(data.catalog, data.matrix)
    files = {"api/catalog.json": compact_json(catalog_document(data.catalog)), "api/fit.json": compact_json(fit)}
    for model_id, model in fit["models"].items():
        files[f"api/fit/{model_id}.json"] = compact_json({**{k: v for k, v in fit.items() if k != "models"},
                                                         "model": model_id, **model})
    return files
