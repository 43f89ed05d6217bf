"""The address the site is published at ($SITE_URL): canonical links, ``hreflang``, the sitemap and the 404 pages
write it into every page, so it is an absolute http(s) address of a host and a path, with nothing that could end
an HTML attribute or become script, and an internationalised host in punycode."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from sizing.catalog.errors import terminal_text

VARIABLE = "SITE_URL"
_HOST = re.compile(r"[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*\.?")
_PATH = re.compile(r"(/([A-Za-z0-9._~!$&()*+,;=:@-]|%[0-9A-Fa-f]{2})*)*")
_FORBIDDEN = {'"': "a quote", "'": "a quote", "<": "an angle bracket", ">": "an angle bracket", "`": "a backquote"}


class SiteAddressError(ValueError):
    """$SITE_URL is not an address the site can be published at; the message names the variable and the fix."""

    def __init__(self, url: str, problem: str) -> None:
        super().__init__(
            f"{VARIABLE}={terminal_text(repr(url))}: {problem}; set {VARIABLE} to the address the site is published "
            "at, like https://owner.github.io/repo/ (or leave it unset for a local build)"
        )


def _problem(url: str) -> str | None:
    """What makes ``url`` unfit before it is split, if anything: a character no address holds as it is."""
    for character in url:
        if character in _FORBIDDEN:
            return f"it holds {_FORBIDDEN[character]} ({character})"
        if character.isspace() or not character.isprintable():
            return f"it holds a space or a control character ({terminal_text(repr(character))})"
    return None


def published_address(url: str) -> str:
    """``url`` as the site is published at it: an http or https address with a host, an optional port and a
    path, no query, fragment or user name; the host in punycode (``bücher.example`` → ``xn--bcher-kva.example``)
    and the path ending in "/". An empty ``url`` (a local build) stays empty; SiteAddressError otherwise."""
    if url == "":
        return url
    problem = _problem(url)
    if problem:
        raise SiteAddressError(url, problem)
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https") or not url.lower().startswith(f"{parts.scheme.lower()}://"):
        raise SiteAddressError(url, "not an absolute http:// or https:// address")
    if parts.query or parts.fragment or "?" in url or "#" in url:
        raise SiteAddressError(url, "an address of a site has no query (?…) and no fragment (#…)")
    hostname = parts.hostname
    if "@" in parts.netloc or not hostname:
        raise SiteAddressError(url, "give a host (and a port, if any), without a user name")
    try:
        host = hostname.encode("idna").decode("ascii")
        port = parts.port
    except (UnicodeError, ValueError) as exc:
        raise SiteAddressError(url, f"its host or port cannot be read ({terminal_text(str(exc))})") from None
    if not _HOST.fullmatch(host):
        raise SiteAddressError(url, f"'{terminal_text(host)}' is not a host name")
    path = parts.path or "/"
    if not _PATH.fullmatch(path):
        raise SiteAddressError(url, "its path holds characters an address writes percent-encoded (%C3%A9 for é)")
    return f"{parts.scheme.lower()}://{host}{'' if port is None else f':{port}'}{path.rstrip('/')}/"
