"""What only a build shows of issue 26: the hook stops a build at once when a file under docs/, overrides/
or data/ is a symlink or is not UTF-8, in one line naming it, and the live site stays as it was."""

from __future__ import annotations

from brokenbuilds import FOREIGN_FILES, LIVE_PAGE, BrokenBuild, BrokenBuilds


def refused(built: BrokenBuild) -> str:
    """What the build printed, once it is shown to have failed and left the live site as it was."""
    assert built.result.returncode != 0
    assert [p.name for p in built.live.iterdir()] == ["index.html"]
    assert (built.live / "index.html").read_text() == LIVE_PAGE
    return built.printed


def test_a_symlink_to_etc_passwd_under_docs_stops_the_build(broken_builds: BrokenBuilds):
    message = refused(broken_builds["a symlink to /etc/passwd under docs/"])
    assert (
        "docs/en/assets/passwd.txt: a symlink (to /etc/passwd); the site publishes only the project's own files: "
        "copy the file in, or remove the link"
    ) in message
    assert "root:" not in message


def test_an_invalid_byte_in_a_french_page_is_named_with_its_line(broken_builds: BrokenBuilds):
    message = refused(broken_builds["a byte that is not UTF-8 in a French page"])
    assert "docs/fr/index.md:6: byte 0xe9 is not UTF-8; save the file as UTF-8" in message


def test_each_foreign_file_built_is_checked():
    assert FOREIGN_FILES.keys() == {"a symlink to /etc/passwd under docs/", "a byte that is not UTF-8 in a French page"}
