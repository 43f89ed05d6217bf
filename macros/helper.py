"""The build's helper process: the pipeline's work, done on the machine's other core while MkDocs works.

MkDocs builds one page after another on one core. When docs/, data/ or the code changed since the last
build (``worth_starting``), the hook starts the helper as it is loaded, and the helper imports the pipeline
and loads the catalog while MkDocs starts up. The hook then hands it every page the build cache lacks, in
the order MkDocs needs them (each language's pages: stage 1, 2, 3; then the API files): all of them after a
change to the data or the code, the pages an edit changed otherwise. The build's own process imports none of
the pipeline: it takes each result from the build cache (``build_cache``), else asks the helper for it at once
and waits (``fetch``). What the helper makes is content-addressed (a page or the API files, under a hash of
all they are made from), so it only saves time: should the helper fail, end or not start, the build's
process makes the result itself, and an error in a page or in the data is always reported by the build's
own attempt. A build that finds everything in the cache starts no helper. `mkdocs serve` keeps the helper it
started for the builds after.

In the helper, ``serve`` reads one JSON request per line on standard input and writes one JSON reply per
request on standard output.
"""
from __future__ import annotations

import atexit
import json
import logging
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from sizing import disk_cache
from sizing.fingerprint import DATA_DIR, data_fingerprint

from .build_cache import docs_state
from .code_version import code_version

PROJECT_ROOT = Path(__file__).resolve().parent.parent
REPLY_TIMEOUT_SECONDS = 60.0    # a page takes a tenth of a second at most: past this the helper is stuck
API_STAGE = 99                  # after every language's pages
Request = dict[str, Any]
_log = logging.getLogger(__name__)


class Helper:
    """The helper process, what was sent to it and its replies (read by a thread as they come)."""

    def __init__(self) -> None:
        # run from the project root, so that it imports this project's macros whatever the build's working folder
        self._process = subprocess.Popen([sys.executable, "-c", "from macros.helper import serve; serve()"],
                                         cwd=PROJECT_ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self._sent: dict[str, bool] = {}            # key -> whether it was sent as urgent
        self._replies: dict[str, dict[str, Any]] = {}
        self._changed = threading.Condition()
        self.ended = False
        threading.Thread(target=self._read_replies, name="build helper replies", daemon=True).start()

    def send(self, request: Request, urgent: bool = False) -> None:
        """Hand the helper a request: ``{"kind": ..., "key": ..., "stage": ...}`` and what its kind needs. It
        is done in the order of its stage, or before anything else when ``urgent``."""
        key = str(request["key"])
        if self.ended or key in self._replies or (key in self._sent and (self._sent[key] or not urgent)):
            return  # ended, done, or sent already (as urgent, or now not urgent either)
        try:
            self._process.stdin.write(json.dumps({**request, "urgent": urgent}).encode() + b"\n")
            self._process.stdin.flush()
        except OSError:  # it ended: what it did not make is made by the build
            self._end()
            return
        self._sent[key] = urgent

    def ask(self, request: Request) -> dict[str, Any] | None:
        """The helper's reply to ``request``, asked for before anything else unless it came already; None when
        the helper ended without replying, or is stuck (then it is stopped: the build does without it)."""
        self.send(request, urgent=True)
        key = str(request["key"])
        with self._changed:
            if self._changed.wait_for(lambda: key in self._replies or self.ended, REPLY_TIMEOUT_SECONDS):
                return self._replies.get(key)
        _log.warning("the build's helper process replied nothing for %.0f s: stopped; the build goes on without it",
                     REPLY_TIMEOUT_SECONDS)
        self._process.kill()
        self._end()
        return None

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
    process too (``mkdocs serve``); None without a build cache (where the helper puts what it makes), or when
    it cannot start."""
    global _helper
    if disk_cache.folder() is None:
        return None
    if _helper is None or _helper.ended:
        try:
            _helper = Helper()
        except OSError:
            return None
        atexit.register(_helper.close)
    return _helper


def current() -> Helper | None:
    """The helper if one was started and has not ended, without starting one."""
    return _helper if _helper is not None and not _helper.ended else None


def _site_state(docs_dir: Path, data_dir: Path) -> str:
    docs = docs_state(docs_dir)
    return disk_cache.content_key(code_version(), data_fingerprint(data_dir).encode(), docs.files, docs.pages)


def worth_starting(docs_dir: Path, data_dir: Path = DATA_DIR) -> bool:
    """Whether a build should start the helper: with a build cache, when docs/, data/ or the code changed
    since the last build that ended with this cache, so that some pages must be rendered again (all of them
    after a change to the data or the code). A build that finds every page in the cache would only pay for
    the helper's start-up."""
    return disk_cache.folder() is not None and not disk_cache.exists("builds", _site_state(docs_dir, data_dir))


def remember_build(docs_dir: Path, data_dir: Path = DATA_DIR) -> None:
    """Note in the build cache that a build ended with this docs/, data/ and code (see ``worth_starting``)."""
    disk_cache.write("builds", _site_state(docs_dir, data_dir), b"")


# --- the helper's side -------------------------------------------------------------------------------------
def serve() -> None:
    """Do what is asked on standard input, urgent requests first, then by stage, until the input ends."""
    from .context import build_data
    from .incremental import prerender, stored_api_files, stored_facts

    jobs: queue.PriorityQueue[tuple[int, int, Request | None]] = queue.PriorityQueue()

    def read_requests() -> None:
        for order, line in enumerate(sys.stdin.buffer):
            request = json.loads(line)
            jobs.put((0 if request["urgent"] else int(request["stage"]), order, request))
        jobs.put((-1, 0, None))  # the build ended: what is left is of no use
    threading.Thread(target=read_requests, daemon=True).start()

    def do(request: Request) -> bool:
        """Whether the helper made what ``request`` asks for; when it did not, the build makes it itself
        and reports what is wrong."""
        if request["kind"] == "page":
            return prerender(request)
        try:  # the facts of the data, or the API files
            stored_facts(build_data()) if request["kind"] == "facts" else stored_api_files(build_data())
        except Exception:  # noqa: BLE001
            return False
        return True

    try:
        build_data()  # while MkDocs starts up: every page needs the catalog
    except Exception:  # noqa: BLE001 - bad data: the build reports it
        pass
    done: set[str] = set()
    while (request := jobs.get()[2]) is not None:
        if request["key"] in done:  # asked again as urgent: the build has its reply
            continue
        done.add(request["key"])
        sys.stdout.buffer.write(json.dumps({"key": request["key"], "done": do(request)}).encode() + b"\n")
        sys.stdout.buffer.flush()

