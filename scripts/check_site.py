"""Checks on the built site, every language: internal links and anchors resolve, every English page
exists in every language (translated or served from English), and no template syntax is left.

Under the site's address (``--site-url``, else $SITE_URL, else the home page's canonical link: the address the
site was built for, e.g. https://owner.github.io/repo/), every canonical link, hreflang alternate and sitemap
entry is under that address and leads to a page of the site, and every link from the host's root
(``/repo/...``, as the 404 pages write them) stays under its path.

    python scripts/check_site.py [site] [--site-url URL]   # exit 1 and a list of problems when any check fails
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import sys
from dataclasses import dataclass, field
from html import unescape
from pathlib import Path
from urllib.parse import unquote, urlsplit
from xml.etree import ElementTree

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from macros.base.languages import TRANSLATIONS as LANGUAGE_PREFIXES  # noqa: E402  (the project's root, above)

SKIPPED_SCHEMES = ("mailto", "data", "javascript", "tel")
SITEMAP_NAMESPACES = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9", "x": "http://www.w3.org/1999/xhtml"}


@dataclass(frozen=True)
class Address:
    """Where the site is served: ``https://example.org/guides/`` (origin https://example.org, path /guides/);
    without a site URL, the host's root."""

    url: str | None

    @property
    def origin(self) -> str | None:
        parts = urlsplit(self.url) if self.url else None
        return f"{parts.scheme}://{parts.netloc}" if parts else None

    @property
    def path(self) -> str:
        return urlsplit(self.url).path.rstrip("/") + "/" if self.url else "/"

    def inside(self, link: str) -> str | None:
        """A link into the site as a path from the site's root ('fr/guides/', '' for the home page); None for a
        link elsewhere (another host, or this host outside the site's path), and the link unchanged when it is
        relative to its page."""
        parts = urlsplit(link)
        if parts.scheme or parts.netloc:
            if f"{parts.scheme}://{parts.netloc}" != self.origin:
                return None
            link = link[len(self.origin or "") :]
        if not link.startswith("/"):
            return link
        return link[len(self.path) :] if (link + "/").startswith(self.path) else None

    def of_page(self, relative: str) -> str:
        """The address of the page built at ``relative`` (``fr/guides/index.html``)."""
        return (self.url or "") + relative.removesuffix("index.html")


# The tokens of an HTML page, as the HTML parser of Python's library reads them (checked on every page of the built
# site, the altered test site's too: the same links, ids and text; on malformed raw HTML, such as an attribute given
# twice, as a browser reads it), in one regular expression, about three times faster: a comment, a CDATA section
# (inline SVG's), a declaration, a script or style element with its text up to its end tag (its content is not
# markup), a start or end tag. In a tag, a quote opens a value only after an equals sign (`alt=5"` is an unquoted
# value, as a browser reads it).
_ATTRIBUTES = r"""((?:(?>[^>"'=]+|=\s*(?:"[^"]*"|'[^']*')|=|["']))*)"""
_TOKEN = re.compile(
    r"<!--.*?(?:-->|\Z)"
    r"|<!\[CDATA\[.*?(?:\]\]>|\Z)"
    r"|<[!?][^>]*>"
    rf"|<(script|style)(?![^\t\n\r\f />\x00]){_ATTRIBUTES}(?<!/)>(.*?)(?:</\1\s*>|\Z)"
    rf"|<(/?)([a-zA-Z][^\t\n\r\f />\x00]*){_ATTRIBUTES}>",
    re.S | re.I,
)
_ATTRIBUTE = re.compile(r"""([^\s/>"'=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?""")
_MAY_HAVE_ID = re.compile(r"id\s*=", re.I)  # a tag whose attributes are read for its id
_LINKING_TAGS = ("a", "link", "script", "img", "iframe", "source")
_CODE_TAGS = ("code", "pre", "script")  # text inside them may show template syntax on purpose


@dataclass
class _Page:
    """One HTML page's link targets, element ids and text outside code."""

    links: list[tuple[str, str]] = field(default_factory=list)  # (what links: "link", "canonical"…; where to)
    ids: set[str] = field(default_factory=set)
    text_outside_code: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, html: str) -> _Page:
        page, depth, last = cls(), 0, 0
        for token in _TOKEN.finditer(html):
            if not depth and token.start() > last:
                page._text(html[last : token.start()])
            last = token.end()
            raw, raw_attributes, raw_text, closing, tag, attributes = token.groups()
            if raw:
                tag, attributes = raw.lower(), raw_attributes
            elif tag is None:  # a comment or a declaration
                continue
            else:
                tag = tag.lower()
            if closing:
                depth -= 1 if depth and tag in _CODE_TAGS else 0
                continue
            if tag in _LINKING_TAGS or _MAY_HAVE_ID.search(attributes):
                page._start_tag(tag, _attribute_values(attributes))
            if tag == "style" and raw and not depth:
                page.text_outside_code.append(raw_text)
            elif tag in _CODE_TAGS and not raw and not attributes.endswith("/"):
                depth += 1  # a script's text was taken whole with its tag
        if not depth and last < len(html):
            page._text(html[last:])
        return page

    def _start_tag(self, tag: str, values: dict[str, str]) -> None:
        if values.get("id"):
            self.ids.add(values["id"])
        if values.get("name") and tag == "a":
            self.ids.add(values["name"])
        for attribute in ("href", "src"):
            if values.get(attribute) and tag in _LINKING_TAGS:
                self.links.append((_kind(tag, values), values[attribute]))

    def _text(self, text: str) -> None:
        self.text_outside_code.append(unescape(text) if "&" in text else text)


def _attribute_values(attributes: str) -> dict[str, str]:
    """A tag's attributes by name, lower-cased; the first of a repeated name, entities decoded."""
    values: dict[str, str] = {}
    for name, double_quoted, single_quoted, bare in _ATTRIBUTE.findall(attributes):
        value = double_quoted or single_quoted or bare
        values.setdefault(name.lower(), unescape(value) if "&" in value else value)
    return values


def _kind(tag: str, values: dict[str, str]) -> str:
    if tag == "link" and values.get("rel") == "canonical":
        return "canonical link"
    if tag == "link" and values.get("rel") == "alternate" and values.get("hreflang"):
        return f"hreflang {values['hreflang']} link"
    return "link"


def _parse(path: Path) -> _Page:
    """The page's links and ids; ValueError naming the line of a byte that is not UTF-8."""
    data = path.read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ValueError(f"line {line}: byte 0x{data[exc.start]:02x} is not UTF-8") from None
    return _Page.of(text)


def _symlinks(site: Path) -> list[str]:
    """Every symlink in the built site: it would publish a file from outside the project."""
    found = []
    for root, dirs, files in os.walk(site):
        for name in [*dirs, *files]:
            path = Path(root, name)
            if path.is_symlink():
                found.append(f"{path.relative_to(site).as_posix()}: a symlink (to {os.readlink(path)}); remove it")
    return found


def _parsed_pages(site: Path, problems: list[str]) -> dict[Path, _Page]:
    """Every HTML page of the site, parsed; one problem per page that cannot be read."""
    pages = {}
    for path in sorted(site.rglob("*.html")):
        try:
            pages[path] = _parse(path)
        except (OSError, ValueError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) else str(exc)
            problems.append(f"{path.relative_to(site).as_posix()}: cannot be read ({reason}); write it as UTF-8")
    return pages


@dataclass(frozen=True)
class _Tree:
    """The built site's files and folders, as normalised absolute paths: a link's target is looked up here, not on
    the disk (the site holds no symlink: ``_symlinks`` reports each, so a path's text is where it leads)."""

    files: frozenset[str]
    folders: frozenset[str]

    @classmethod
    def of(cls, site: Path) -> _Tree:
        files: set[str] = set()
        folders = {str(site)}
        for root, dirs, names in os.walk(site):
            folders.update(os.path.join(root, name) for name in dirs)
            files.update(os.path.join(root, name) for name in names)
        return cls(frozenset(files), frozenset(folders))


def _target_file(site: Path, page: Path, link: str, address: Address, tree: _Tree) -> tuple[str | None, str]:
    """The file a link of the site leads to (a normalised absolute path) and its anchor; None for a link to
    somewhere else."""
    inside = address.inside(link)
    if inside is None:
        return None, ""
    parts = urlsplit(inside)
    path = unquote(parts.path)
    relative_to_page = inside == link and not link.startswith("/")
    target = os.path.normpath(
        (os.path.join(page.parent, path) if path else str(page)) if relative_to_page else os.path.join(site, path)
    )
    if target in tree.folders or path.endswith("/"):
        target = os.path.join(target, "index.html")
    return target, unquote(parts.fragment)


def _outside(kind: str, link: str, address: Address) -> str | None:
    """Why a link that should stay under the site's address does not, or None. A plain link to another host is
    fine; a canonical or hreflang link, or one to this host, must be under the site's address."""
    parts = urlsplit(link)
    if parts.scheme in ("http", "https") and address.url and not link.startswith(address.url):
        same_host = f"{parts.scheme}://{parts.netloc}" == address.origin
        return f"is not under the site's address {address.url}" if same_host or kind != "link" else None
    if not parts.scheme and link.startswith("/") and not (link + "/").startswith(address.path):
        return f"leaves the site's path {address.path}"
    return None


def _link_problems(
    site: Path, path: Path, kind: str, link: str, *, address: Address, pages: dict[Path, _Page], tree: _Tree
) -> list[str]:
    if link.split(":", 1)[0] in SKIPPED_SCHEMES and ":" in link:
        return []
    problem = _outside(kind, link, address)
    target, anchor = _target_file(site, path, link, address, tree) if problem is None else (None, "")
    if target is not None and target not in tree.files:
        problem = "leads to no file"
    elif target is not None and anchor and target.endswith(".html"):
        linked = pages.get(Path(target))
        problem = f"has no anchor '#{anchor}' in its target" if linked and anchor not in linked.ids else None
    return [f"{path.relative_to(site).as_posix()}: {kind} to '{link}' {problem}"] if problem else []


def _canonical_problems(site: Path, path: Path, parsed: _Page, address: Address) -> list[str]:
    """A page (not a 404 page) built for a site address names itself as canonical, at that address."""
    where = path.relative_to(site).as_posix()
    if not address.url or path.name == "404.html":
        return []
    canonical = [link for kind, link in parsed.links if kind == "canonical link"]
    expected = address.of_page(where)
    if canonical != [expected]:
        return [f"{where}: canonical link {canonical or 'missing'}, expected ['{expected}']"]
    return []


def _sitemap_problems(site: Path, address: Address, pages: dict[Path, _Page], tree: _Tree) -> list[str]:
    """Every entry of the sitemap and each of its hreflang alternates: under the site's address, to a page."""
    sitemap = site / "sitemap.xml"
    if not address.url or not sitemap.exists():
        return []
    problems = []
    for url in ElementTree.parse(sitemap).getroot().findall("s:url", SITEMAP_NAMESPACES):
        links = [("sitemap entry", url.findtext("s:loc", "", SITEMAP_NAMESPACES))]
        links += [
            (f"sitemap hreflang {alt.get('hreflang')} alternate", alt.get("href", ""))
            for alt in url.findall("x:link", SITEMAP_NAMESPACES)
        ]
        for kind, link in links:
            home = site / "index.html"
            for problem in _link_problems(site, home, kind, link, address=address, pages=pages, tree=tree):
                problems.append("sitemap.xml" + problem.removeprefix("index.html"))
    return problems


def site_address(site: Path, given: str | None = None) -> Address:
    """The address to check the site under: given, else $SITE_URL, else its home page's canonical link."""
    url = given or os.environ.get("SITE_URL")
    home = site / "index.html"
    if not url and home.exists():
        with contextlib.suppress(ValueError):  # an unreadable home page is reported by check_site
            url = next((link for kind, link in _parse(home).links if kind == "canonical link"), None)
    return Address(url.rstrip("/") + "/" if url else None)


def check_site(site: Path, english_docs: Path = ROOT / "docs" / "en", address: Address | None = None) -> list[str]:
    """Every problem found, as 'page: what'."""
    site = site.resolve()
    address = address or site_address(site)
    problems: list[str] = _symlinks(site)
    pages = _parsed_pages(site, problems)
    tree = _Tree.of(site)
    for path, parsed in pages.items():
        where = path.relative_to(site).as_posix()
        text = "".join(parsed.text_outside_code)
        if re.search(r"\{\{|\{%", text):
            problems.append(f"{where}: template syntax left in the page")
        for kind, link in parsed.links:
            problems += _link_problems(site, path, kind, link, address=address, pages=pages, tree=tree)
        problems += _canonical_problems(site, path, parsed, address)
    problems += _sitemap_problems(site, address, pages, tree)
    for source in sorted(english_docs.rglob("*.md")):
        relative = source.relative_to(english_docs).with_suffix("")
        url = relative.parent if relative.name == "index" else relative
        for prefix in ("", *LANGUAGE_PREFIXES):
            built = site / prefix / url / "index.html"
            if not built.exists():
                problems.append(
                    f"{built.relative_to(site)}: missing (the English page {relative}.md has no "
                    f"page in /{prefix or 'en'}/)"
                )
    return list(dict.fromkeys(problems))  # a link repeated on a page is one problem


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("site", type=Path, nargs="?", default=ROOT / "site")
    parser.add_argument("--site-url", help="the address the site was built for (default: $SITE_URL, or its canonical)")
    args = parser.parse_args()
    address = site_address(args.site, args.site_url)
    problems = check_site(args.site, address=address)
    for problem in problems:
        print(problem)
    count = len(list(args.site.rglob("*.html")))
    under = f" under {address.url}" if address.url else " (no site address: links checked from the host's root)"
    print(f"checked {count} pages{under}: " + (f"{len(problems)} problems" if problems else "all good"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
