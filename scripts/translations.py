"""Translation status: which pages are translated and current, outdated, missing or orphaned; for an outdated
page, the English paragraphs that changed since its stamp.

python scripts/translations.py              # the table, then what changed in English for each outdated page
python scripts/translations.py --check      # exit 1 if a translation has no English page
python scripts/translations.py --stamp docs/fr/guides/nvlink-or-pcie.md
                                            # after bringing a translation up to date
"""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DOCS_DIR = PROJECT_ROOT / "docs"
sys.path.insert(0, str(PROJECT_ROOT))

from macros.site.translations import (  # noqa: E402
    Change,
    PageStatus,
    State,
    english_changes,
    stamp,
    translation_status,
)

EXPLAIN = {
    State.CURRENT: "translated, matches the English page",
    State.OUTDATED: "the English page changed since (below): update, then --stamp",
    State.MISSING: "not translated: readers get the English page",
    State.ORPHANED: "no English page: remove it or add the English page",
}


def _quoted(text: str, mark: str) -> list[str]:
    return [f"      {mark} {line}" for line in text.splitlines()]


def change_lines(english_page: str, change: Change) -> list[str]:
    """One changed paragraph, as a translator reads it: where, then the English text before and after."""
    if change.before is None:
        return [f"    {english_page}:{change.line}: added", *_quoted(change.after or "", "+")]
    if change.after is None:
        return [f"    {english_page}:{change.line}: removed (it stood before this line)", *_quoted(change.before, "-")]
    return [f"    {english_page}:{change.line}: changed", *line_diff(change.before, change.after)]


def line_diff(before: str, after: str) -> list[str]:
    """A changed paragraph line by line: lines kept as they were, lines removed (-) and lines added (+)."""
    old, new = before.splitlines(), after.splitlines()
    shown: list[str] = []
    for tag, a1, a2, b1, b2 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        if tag == "equal":
            shown += _quoted("\n".join(old[a1:a2]), " ")
        else:
            shown += _quoted("\n".join(old[a1:a2]), "-") + _quoted("\n".join(new[b1:b2]), "+")
    return shown


def outdated_report(docs: Path, rows: list[PageStatus]) -> list[str]:
    """For each outdated translation, the English paragraphs that changed since its stamp."""
    lines: list[str] = []
    for row in rows:
        if row.state is not State.OUTDATED:
            continue
        english_page = f"docs/en/{row.page}"
        changes = english_changes(docs, row)
        lines.append(f"\n{row.lang}  {row.page}: what {english_page} changed since the stamp {row.recorded_hash}")
        if changes is None:
            lines.append(
                f"    the English text of that stamp was not kept; see `git log -p {english_page}` "
                "(from the next --stamp on, it is kept in translations/)"
            )
        for change in changes or []:
            lines += change_lines(english_page, change)
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="exit 1 when a translation is orphaned")
    parser.add_argument(
        "--stamp", type=Path, metavar="TRANSLATION", help="record the English hash in it, and keep that English text"
    )
    parser.add_argument("--docs", type=Path, default=DOCS_DIR, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.stamp:
        print(f"{args.stamp}: source_hash {stamp(args.stamp, args.docs)}")
        return 0
    rows = translation_status(args.docs)
    width = max(len(r.page) for r in rows)
    for row in rows:
        print(f"{row.lang}  {row.page:<{width}}  {row.state.value:<9}  {EXPLAIN[row.state]}")
    counts = {state: sum(r.state is state for r in rows) for state in State}
    print("  ".join(f"{state.value}: {count}" for state, count in counts.items()))
    for line in outdated_report(args.docs, rows):
        print(line)
    return 1 if args.check and counts[State.ORPHANED] else 0


if __name__ == "__main__":
    sys.exit(main())
