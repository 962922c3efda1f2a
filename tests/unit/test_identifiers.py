"""What makes an id: plain visible text that reads the same wherever it is shown."""

from __future__ import annotations

import unicodedata

import pytest

from store.domain.identifiers import MAX_ID_CHARS, id_problem


@pytest.mark.parametrize(
    "value",
    [
        pytest.param("run_1", id="ascii"),
        pytest.param("r" * MAX_ID_CHARS, id="at-the-limit"),
        pytest.param("thr 42", id="inner-space"),
        pytest.param("ünïcode-線-עברית-عربي", id="scripts"),
        pytest.param("🚚-📦", id="emoji"),
        pytest.param("a?b#c%41&d", id="address-punctuation"),
        pytest.param("\ue000private", id="private-use"),
    ],
)
def test_plain_visible_text_is_an_id(value: str) -> None:
    assert id_problem("runId", value, in_address=True) is None


@pytest.mark.parametrize(
    ("value", "said"),
    [
        pytest.param("", "runId is empty; give an id of 1 to 200 characters.", id="empty"),
        pytest.param("r" * 201, "runId is 201 characters long; the limit is 200.", id="too-long"),
        pytest.param(" r", "runId starts or ends with a space", id="leading-space"),
        pytest.param("r\u00a0", "runId starts or ends with a space", id="trailing-no-break-space"),
        pytest.param("r\x00", "invisible or control character (U+0000)", id="nul"),
        pytest.param("r\n", "contains a line break (U+000A); an id is one line", id="line-feed"),
        pytest.param("r\x85", "contains a line break (U+0085)", id="next-line"),
        pytest.param("r\u2028s", "contains a line break (U+2028)", id="line-separator"),
        pytest.param("r\u2029s", "contains a line break (U+2029)", id="paragraph-separator"),
        pytest.param("u\u202ex", "invisible or control character (U+202E)", id="right-to-left-override"),
        pytest.param("u\u2066x", "invisible or control character (U+2066)", id="isolate"),
        pytest.param("u\u200bx", "invisible or control character (U+200B)", id="zero-width-space"),
        pytest.param("\ufeffu", "invisible or control character (U+FEFF)", id="byte-order-mark"),
        pytest.param("u\ud800", "invisible or control character (U+D800)", id="lone-surrogate"),
        pytest.param("r\ufffd", "runId contains U+FFFD", id="replacement-character"),
        pytest.param("a/b", "runId contains '/'", id="slash-in-an-address"),
    ],
)
def test_anything_else_is_refused_with_a_sentence_naming_the_field(value: str, said: str) -> None:
    problem = id_problem("runId", value, in_address=True)

    assert problem is not None
    assert said in problem
    assert problem.startswith("runId ")
    assert problem.endswith(".")


def test_a_slash_is_fine_in_an_id_that_never_goes_into_an_address() -> None:
    assert id_problem("actor.id", "dept/ada") is None


@pytest.mark.parametrize("code", range(128))
def test_every_ascii_character_is_judged_as_its_unicode_category_says(code: int) -> None:
    invisible = unicodedata.category(chr(code)) in {"Cc", "Cf", "Cs", "Zl", "Zp"}

    assert (id_problem("runId", f"a{chr(code)}b") is not None) == invisible
