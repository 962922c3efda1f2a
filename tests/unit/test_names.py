"""A person's display name, as OnFile keeps it from the identity provider: plain visible text on one
line, whatever the provider sent."""

from __future__ import annotations

import pytest

from store.domain.names import MAX_NAME_CHARS, display_name


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        pytest.param("Ada Lovelace", "Ada Lovelace", id="plain"),
        pytest.param("  Ada   Lovelace ", "Ada Lovelace", id="spaces-folded"),
        pytest.param("Ada\nLovelace\r\n", "Ada Lovelace", id="line-breaks-are-spaces"),
        pytest.param("Ada\tLovelace", "Ada Lovelace", id="tab-is-a-space"),
        pytest.param("Ada\u2028Lovelace", "Ada Lovelace", id="line-separator-is-a-space"),
        pytest.param("Ada\u00a0Lovelace", "Ada Lovelace", id="no-break-space"),
        pytest.param("\u202eecalevoL adA", "ecalevoL adA", id="right-to-left-override"),
        pytest.param("Ada \u2067Lovelace\u2069", "Ada Lovelace", id="isolates"),
        pytest.param("Ada \u202a\u202c Lovelace", "Ada Lovelace", id="an-embedding-between-spaces"),
        pytest.param("A\u200bda\u200e", "Ada", id="zero-width-space-and-mark"),
        pytest.param("\ufeffAda", "Ada", id="byte-order-mark"),
        pytest.param("Ada\x00\x1b[31m", "Ada[31m", id="nul-and-escape"),
        pytest.param("Ada\ud800", "Ada", id="lone-surrogate"),
        pytest.param("مریم\u200cزاده", "مریم\u200cزاده", id="non-joiner-kept-persian"),
        pytest.param("👩\u200d💻 Ada", "👩\u200d💻 Ada", id="joiner-kept-emoji"),
        pytest.param("עדה לאבלייס", "עדה לאבלייס", id="hebrew"),
        pytest.param("<script>alert(1)</script>", "<script>alert(1)</script>", id="markup-is-text"),
        pytest.param("x" * (MAX_NAME_CHARS + 50), "x" * MAX_NAME_CHARS, id="cut-at-the-limit"),
        pytest.param("x" * (MAX_NAME_CHARS - 1) + " y", "x" * (MAX_NAME_CHARS - 1), id="cut-before-a-space"),
    ],
)
def test_a_name_is_kept_as_plain_visible_text_on_one_line(given: str, kept: str) -> None:
    assert display_name(given) == kept


@pytest.mark.parametrize(
    "given",
    [
        pytest.param("", id="empty"),
        pytest.param(" \n\t ", id="white-space"),
        pytest.param("\u202e\u202c\u200b", id="only-invisible"),
        pytest.param(None, id="absent"),
        pytest.param(42, id="a-number"),
        pytest.param(["Ada"], id="a-list"),
    ],
)
def test_nothing_visible_is_no_name(given: object) -> None:
    assert display_name(given) is None
