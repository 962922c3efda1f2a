"""The README and docs/ point only at what exists: every relative link names a file in the repository
(never one outside it), every `#anchor` a heading of its page, and every test they cite is there."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from web.app import PROJECT_ROOT

PAGES = sorted([PROJECT_ROOT / "README.md", *(PROJECT_ROOT / "docs").rglob("*.md")])

_FENCED = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)  # https:, mailto: …
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
_CITED_TEST = re.compile(r"\btests/[\w/]+\.py(?:::\w+)?")


def _prose(text: str) -> str:
    """The text without code blocks and code spans, where a bracket is not a link."""
    return _INLINE_CODE.sub("", _FENCED.sub("", text))


def _links(page: Path) -> list[str]:
    return _LINK.findall(_prose(page.read_text(encoding="utf-8")))


def _slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.replace("`", "").strip().lower())
    return text.replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    anchors = set()
    for heading in _HEADING.findall(_FENCED.sub("", page.read_text(encoding="utf-8"))):
        slug = _slug(heading)
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchors.add(slug if count == 0 else f"{slug}-{count}")
    return anchors


def _defines(path: Path, test: str) -> bool:
    """Whether `path` is a file and, when a test is named, defines it."""
    if not path.is_file():
        return False
    return not test or re.search(rf"^(async )?def {test}\(", path.read_text(encoding="utf-8"), re.MULTILINE) is not None


def _name(page: Path) -> str:
    return str(page.relative_to(PROJECT_ROOT))


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_every_relative_link_names_a_file_inside_the_repository(page: Path) -> None:
    broken = []
    for target in _links(page):
        if _EXTERNAL.match(target) or target.startswith("#"):
            continue
        path = (page.parent / target.partition("#")[0]).resolve()
        if not path.is_relative_to(PROJECT_ROOT):
            broken.append(f"{target} (outside the repository)")
        elif not path.exists():
            broken.append(f"{target} (no such file)")

    assert broken == [], f"{_name(page)} links to what is not in the repository: {broken}"


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_every_anchor_names_a_heading_of_its_page(page: Path) -> None:
    broken = []
    for target in _links(page):
        file, _, anchor = target.partition("#")
        if _EXTERNAL.match(target) or not anchor:
            continue
        linked = (page.parent / file).resolve() if file else page
        if linked.suffix == ".md" and linked.is_file() and anchor not in _anchors(linked):
            broken.append(target)

    assert broken == [], f"{_name(page)} links to headings that do not exist: {broken}"


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_every_test_a_page_cites_exists(page: Path) -> None:
    missing = []
    for cited in sorted(set(_CITED_TEST.findall(page.read_text(encoding="utf-8")))):
        file, _, test = cited.partition("::")
        if not _defines(PROJECT_ROOT / file, test):
            missing.append(cited)

    assert missing == [], f"{_name(page)} cites tests that do not exist: {missing}"


def test_the_checks_see_links_anchors_and_cited_tests() -> None:
    page = PROJECT_ROOT / "README.md"

    assert "docs/deploy.md#the-identity-provider" in _links(page)
    assert "the-identity-provider" in _anchors(PROJECT_ROOT / "docs" / "deploy.md")
    assert _slug("Operator tokens: `/metrics` and `/schema`") == "operator-tokens-metrics-and-schema"
    assert _LINK.findall(_prose("`[a](b.md)` and\n```\n[c](d.md)\n```\n[e](f.md)")) == ["f.md"]
