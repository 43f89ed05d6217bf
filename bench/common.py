"""Shared by the benchmark scripts: paths, a quiet local server, timing helpers."""

from __future__ import annotations

import functools
import gzip
import http.server
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
NINE_PAGES = [
    f"{prefix}{page}" for prefix in ("", "fr/", "zh/") for page in ("", "guides/nvlink-or-pcie/", "configurator/")
]  # the home page, a guide and the configurator in each language
PLAN_PAGES = [f"{prefix}plan/" for prefix in ("", "fr/", "zh/")]  # the Plan page, its form and a plan
TWELVE_PAGES = NINE_PAGES + PLAN_PAGES


class _Quiet(http.server.SimpleHTTPRequestHandler):
    """A static host as deployed: gzip for text when the browser asks for it."""

    COMPRESSED = (".html", ".css", ".js", ".json", ".svg", ".xml", ".txt")

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            path = path / "index.html"
        if (
            "gzip" not in self.headers.get("Accept-Encoding", "")
            or path.suffix not in self.COMPRESSED
            or not path.exists()
        ):
            super().do_GET()
            return
        body = gzip.compress(path.read_bytes(), 6)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "max-age=3600")
        self.end_headers()
        self.wfile.write(body)


@contextmanager
def serve(site: Path) -> Iterator[str]:
    """``site`` on a free loopback port, for as long as the block runs."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()


def site_size(site: Path) -> tuple[int, int]:
    """(bytes, HTML pages) of a built site."""
    files = [path for path in site.rglob("*") if path.is_file()]
    return sum(path.stat().st_size for path in files), sum(path.suffix == ".html" for path in files)


def mkdocs_build(config: Path, site: Path, env: dict[str, str] | None = None) -> float:
    """Seconds one strict build takes (fails loudly)."""
    start = time.perf_counter()
    result = subprocess.run(
        [PYTHON, "-m", "mkdocs", "build", "--strict", "--quiet", "-f", str(config), "-d", str(site)],
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1", **(env or {})},
        check=False,
    )
    elapsed = time.perf_counter() - start
    if result.returncode:
        raise SystemExit(f"build of {config} failed:\n{result.stderr[-3000:]}")
    return elapsed
