"""Translation status: which pages are translated and current, outdated, missing or orphaned.

python scripts/translations.py              # the table
python scripts/translations.py --check      # exit 1 if a translation has no English page
python scripts/translations.py --stamp docs/fr/guides/nvlink-or-pcie.md
                                            # after bringing a translation up to date
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DOCS_DIR = PROJECT_ROOT / "docs"
sys.path.insert(0, str(PROJECT_ROOT))

from macros.site.translations import State, stamp, translation_status  # noqa: E402

EXPLAIN = {
    State.CURRENT: "translated, matches the English page",
    State.OUTDATED: "the English page changed since: update, then --stamp",
    State.MISSING: "not translated: readers get the English page",
    State.ORPHANED: "no English page: remove it or add the English page",
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="exit 1 when a translation is orphaned")
    parser.add_argument("--stamp", type=Path, metavar="TRANSLATION", help="record the English hash in it")
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
    return 1 if args.check and counts[State.ORPHANED] else 0


if __name__ == "__main__":
    sys.exit(main())
