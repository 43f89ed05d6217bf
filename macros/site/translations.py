"""Translation status of every page: current, outdated, missing (served from English) or orphaned.

"Outdated" is decided by a hash, not by git history: each translation records in its front matter
(`source_hash`) the hash of the English page it was translated from. It works the same in a shallow CI
clone, a tarball or a fresh checkout, survives renames and rebases, and says exactly which English text a
translation matches; `python scripts/translations.py --stamp docs/fr/<page>.md` records it after an update,
and keeps that English text in `translations/<hash>.md` (beside docs/), so that for an outdated translation the
paragraphs the English page changed since can be shown."""

from __future__ import annotations

import difflib
import hashlib
import re
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from macros.base.front_matter import front_matter_end, parse_front_matter
from macros.base.languages import SOURCE_LANGUAGE, TRANSLATIONS
from macros.output.strings import text
from sizing.catalog.yaml_lines import read_text_file

TRANSLATORS_GUIDE = "reference/translating/"


class State(StrEnum):
    CURRENT = "current"
    OUTDATED = "outdated"
    MISSING = "missing"
    ORPHANED = "orphaned"


@dataclass(frozen=True)
class PageStatus:
    page: str  # path inside a language folder, e.g. guides/nvlink-or-pcie.md
    lang: str
    state: State
    english_hash: str | None
    recorded_hash: str | None


def source_hash(text: str) -> str:
    """Short hash of an English page's text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def recorded_hash(text: str, page: str = "the translation") -> str | None:
    lines = text.splitlines()
    end = front_matter_end(lines)
    if not end:
        return None
    data = parse_front_matter(lines, end, page)
    value = data.get("source_hash") if isinstance(data, dict) else None
    return str(value) if value is not None else None


def _pages(docs_dir: Path, lang: str) -> set[str]:
    root = docs_dir / lang
    return {p.relative_to(root).as_posix() for p in root.rglob("*.md")} if root.exists() else set()


def page_status(docs_dir: Path, lang: str, page: str) -> PageStatus:
    english = docs_dir / SOURCE_LANGUAGE / page
    translation = docs_dir / lang / page
    english_hash = source_hash(read_text_file(english)) if english.exists() else None
    if not translation.exists():
        return PageStatus(page, lang, State.MISSING, english_hash, None)
    recorded = recorded_hash(read_text_file(translation), f"docs/{lang}/{page}")
    if english_hash is None:
        return PageStatus(page, lang, State.ORPHANED, None, recorded)
    state = State.CURRENT if recorded == english_hash else State.OUTDATED
    return PageStatus(page, lang, state, english_hash, recorded)


def translation_status(docs_dir: Path) -> list[PageStatus]:
    """Every page of every translation, English pages first, then pages only a translation has."""
    english = _pages(docs_dir, SOURCE_LANGUAGE)
    rows = []
    for lang in TRANSLATIONS:
        for page in sorted(english | _pages(docs_dir, lang)):
            rows.append(page_status(docs_dir, lang, page))
    return rows


def stamped_texts(docs_dir: Path) -> Path:
    """Where the English text of every stamp is kept, by hash: ``translations/`` beside ``docs/``."""
    return docs_dir.parent / "translations"


def stamp(translation: Path, docs_dir: Path) -> str:
    """Record in a translation's front matter the hash of its current English page, and keep that English text."""
    relative = translation.resolve().relative_to(docs_dir.resolve())
    english = docs_dir / SOURCE_LANGUAGE / Path(*relative.parts[1:])
    english_text = read_text_file(english)
    value = source_hash(english_text)
    kept = stamped_texts(docs_dir) / f"{value}.md"
    kept.parent.mkdir(parents=True, exist_ok=True)
    kept.write_text(english_text, encoding="utf-8")
    text = read_text_file(translation)
    lines = text.splitlines(keepends=True)
    end = front_matter_end([line.rstrip("\n") for line in lines])
    if not end:
        text = f"---\nsource_hash: {value}\n---\n\n{text}"
    elif re.search(r"^source_hash:.*$", "".join(lines[:end]), re.M):
        head = re.sub(r"^source_hash:.*$", f"source_hash: {value}", "".join(lines[:end]), count=1, flags=re.M)
        text = head + "".join(lines[end:])
    else:
        text = "".join(lines[: end - 1]) + f"source_hash: {value}\n" + "".join(lines[end - 1 :])
    translation.write_text(text, encoding="utf-8")
    prune_stamped_texts(docs_dir)
    return value


def prune_stamped_texts(docs_dir: Path) -> list[Path]:
    """Remove the kept English texts that no translation's stamp names any more; the paths removed."""
    named = {
        found.group(1)
        for lang in TRANSLATIONS
        for page in (docs_dir / lang).rglob("*.md")
        if (found := re.search(r"^source_hash: *(\w+)", read_text_file(page), re.M))
    }
    stale = [kept for kept in stamped_texts(docs_dir).glob("*.md") if kept.stem not in named]
    for kept in stale:
        kept.unlink()
    return stale


@dataclass(frozen=True)
class Change:
    """One paragraph of an English page changed since a stamp: its line in today's page (or, for a removed
    paragraph, the line it stood before), and its text then and now (None: added, or removed)."""

    line: int
    before: str | None
    after: str | None


def paragraphs(text: str) -> list[tuple[int, str]]:
    """(first line, text) of each paragraph (lines between blank lines), front matter left out."""
    lines = text.splitlines()
    start = front_matter_end(lines)
    found: list[tuple[int, str]] = []
    block: list[str] = []
    for number, line in enumerate([*lines[start:], ""], start=start + 1):
        if line.strip():
            block.append(line)
        elif block:
            found.append((number - len(block), "\n".join(block)))
            block = []
    return found


def changes_since(before: str, after: str) -> list[Change]:
    """The paragraphs of ``after`` that differ from ``before``, paragraph by paragraph."""
    old, new = paragraphs(before), paragraphs(after)
    matcher = difflib.SequenceMatcher(a=[t for _, t in old], b=[t for _, t in new], autojunk=False)
    changes = []
    for tag, a1, a2, b1, b2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        for offset in range(max(a2 - a1, b2 - b1)):
            then = old[a1 + offset][1] if a1 + offset < a2 else None
            now = new[b1 + offset] if b1 + offset < b2 else None
            line = now[0] if now else (new[b1][0] if b1 < len(new) else (new[-1][0] if new else 1))
            changes.append(Change(line, then, now[1] if now else None))
    return changes


def english_changes(docs_dir: Path, status: PageStatus) -> list[Change] | None:
    """For an outdated translation, what its English page changed since the stamp; None when the English text
    of the stamp was not kept (a stamp older than the keeping, or none)."""
    kept = stamped_texts(docs_dir) / f"{status.recorded_hash}.md"
    if status.recorded_hash is None or not kept.exists():
        return None
    english = read_text_file(docs_dir / SOURCE_LANGUAGE / status.page)
    return changes_since(read_text_file(kept), english)


def is_current(translation: str, english: str) -> bool:
    """Whether a translation's stamp names its English page as it is today."""
    return recorded_hash(translation) == source_hash(english)


def translation_banner(
    docs_dir: Path, page: str, lang: str, text_lang: str, *, english_url: str, lang_root: str
) -> dict[str, str] | None:
    """What to tell a reader of ``lang`` on ``page`` (its path inside a language folder), whose text is in
    ``text_lang``: this page is English for now, or its translation is behind. None when there is nothing
    to say (an English page, a current translation)."""
    if lang == SOURCE_LANGUAGE:
        return None
    if text_lang != lang:
        kind, link, link_text = "missing", lang_root + TRANSLATORS_GUIDE, "help_link"
    elif page_status(docs_dir, lang, page).state is State.OUTDATED:
        kind, link, link_text = "outdated", english_url, "english_link"
    else:
        return None
    return {
        "kind": kind,
        "title": text("banners", f"{kind}_title", lang),
        "text": text("banners", f"{kind}_text", lang),
        "link": link,
        "link_text": text("banners", link_text, lang),
        "gap": text("banners", "gap", lang),  # between the sentence and the link: none after Chinese punctuation
    }
