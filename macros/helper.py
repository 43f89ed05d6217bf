"""The build's helper process: work MkDocs need not wait for, done on the machine's other core.

MkDocs builds one page after another on one core. The hook hands the helper what it can do ahead of MkDocs:
drawing a chart (``chart_helper``); rendering pages into the build cache (``incremental.prerender``): the
first language's from the last while MkDocs works from the first (MkDocs finds the pages past the point
where they meet already rendered), then those of the languages built after it, before MkDocs gets to them;
and making the API files, which the build writes last. Whatever the helper makes is content-addressed (a page or a
drawing under a hash of all it is made from), so it only saves time: what it has not made yet is made by the
build itself, and an error in a page is reported by the build's own rendering of it.

Run as ``python -m macros.helper``, this module is the helper: one JSON request per line on standard input,
charts first, then pages, then the API files; a chart gets a JSON reply line on standard output, the others
none (what they make is in the build cache).
"""
from __future__ import annotations

import atexit
import json
import os
import queue
import subprocess
import sys
import threading
import traceback
from pathlib import Path

from sizing import disk_cache
from sizing.fingerprint import DATA_DIR, data_fingerprint

from .code_version import code_version

PROJECT_ROOT = Path(__file__).resolve().parent.parent
_IN_HELPER = "GUIDES_BUILD_HELPER"          # set in the helper's environment
REPLY_TIMEOUT_SECONDS = 120.0               # a drawing takes a tenth of a second; past this the helper is stuck
PRIORITY = {"chart": 0, "page": 1, "api": 2}  # a page waits for its charts; the API files are written last


def in_helper() -> bool:
    """Whether this process is the helper (which draws its own pages' charts itself)."""
    return os.environ.get(_IN_HELPER) == "1"


class HelperError(Exception):
    """The helper failed at something the build cannot do without (a chart it was asked to draw)."""


class Helper:
    """The helper process, the charts asked of it and its replies (read by a thread as they come)."""

    def __init__(self) -> None:
        # run from the project root: `-m` imports this project's macros, whatever the build's working folder
        self._process = subprocess.Popen([sys.executable, "-m", "macros.helper"], cwd=PROJECT_ROOT,
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, env={**os.environ, _IN_HELPER: "1"})
        self._asked: set[str] = set()
        self._replies: dict[str, dict[str, str]] = {}
        self._changed = threading.Condition()
        self.ended = False
        threading.Thread(target=self._read_replies, name="build helper replies", daemon=True).start()

    def send(self, request: dict[str, object]) -> None:
        """Hand the helper a request (``{"kind": "chart", "key": ..., ...}`` or ``{"kind": "page", ...}``)."""
        if self.ended or request.get("key") in self._asked:
            return
        try:
            self._process.stdin.write(json.dumps(request).encode() + b"\n")
            self._process.stdin.flush()
        except OSError:  # it ended: what it did not make is made by the build
            self._end()
            return
        if request["kind"] == "chart":
            self._asked.add(str(request["key"]))

    def reply(self, key: str) -> dict[str, str] | None:
        """The helper's reply to the chart ``key``; None when it was not asked or ended without replying."""
        if key not in self._asked:
            return None
        with self._changed:
            if not self._changed.wait_for(lambda: key in self._replies or self.ended, REPLY_TIMEOUT_SECONDS):
                raise HelperError(f"the build's helper process replied nothing for {REPLY_TIMEOUT_SECONDS:.0f} s; "
                                  "build again, and report it if it happens again")
            return self._replies.get(key)

    def close(self) -> None:
        try:
            self._process.stdin.close()
            self._process.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            self._process.kill()

    def _read_replies(self) -> None:
        for line in self._process.stdout:
            reply = json.loads(line)
            with self._changed:
                self._replies[reply["key"]] = reply
                self._changed.notify_all()
        self._end()

    def _end(self) -> None:
        with self._changed:
            self.ended = True
            self._changed.notify_all()


_helper: Helper | None = None


def helper() -> Helper | None:
    """This process's helper, started on first use (and again if it ended), serving every later build of the
    process too (``mkdocs serve``); None when it cannot start or this process is the helper."""
    global _helper
    if in_helper():
        return None
    if _helper is None or _helper.ended:
        try:
            _helper = Helper()
        except OSError:
            return None
        atexit.register(_helper.close)
    return _helper


def _build_key(data_dir: Path) -> str:
    return disk_cache.content_key(code_version(), data_fingerprint(data_dir).encode())


def worth_starting(data_dir: Path = DATA_DIR) -> bool:
    """Whether the build should hand pages to the helper: with a build cache, and no build with it rendered
    this data with this code yet, so that every page is rendered again. A build that finds them renders the
    few pages an edit changed itself: there the helper's start and checks would cost more than they save."""
    return disk_cache.folder() is not None and disk_cache.read("builds", _build_key(data_dir)) is None


def remember_build(data_dir: Path = DATA_DIR) -> None:
    """Note in the build cache that a build rendered this data with this code (see ``worth_starting``)."""
    disk_cache.write("builds", _build_key(data_dir), b"")


def current() -> Helper | None:
    """The helper if one was started, without starting one."""
    return _helper


# --- the helper's side -------------------------------------------------------------------------------------
def serve() -> None:
    """Do what is asked on standard input, charts first, until the input ends."""
    from .chart_drawing import draw, from_json
    from .context import build_data
    from .incremental import prerender, stored_api_files

    jobs: queue.PriorityQueue[tuple[int, int, dict[str, object] | None]] = queue.PriorityQueue()

    def read_requests() -> None:
        for number, line in enumerate(sys.stdin.buffer):
            request = json.loads(line)
            jobs.put((PRIORITY[str(request["kind"])], number, request))
        jobs.put((-1, 0, None))  # the build ended: what is left is of no use
    threading.Thread(target=read_requests, daemon=True).start()
    while (request := jobs.get()[2]) is not None:
        if request["kind"] == "page":
            prerender(request)
            continue
        if request["kind"] == "api":
            try:
                stored_api_files(build_data())  # into the build cache, where the build's last step finds them
            except Exception:  # noqa: BLE001 - the build makes them itself and reports what is wrong
                pass
            continue
        try:
            reply = {"key": request["key"], "svg": draw(from_json(str(request["chart"])))}
        except Exception:  # noqa: BLE001 - reported to the build, which stops with it
            reply = {"key": request["key"], "error": traceback.format_exc()}
        sys.stdout.buffer.write(json.dumps(reply).encode() + b"\n")
        sys.stdout.buffer.flush()


if __name__ == "__main__":
    serve()
