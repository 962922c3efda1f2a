"""What a choice of memories to forget reaches, who may correct one, and what an undo puts back."""

from __future__ import annotations

import pytest

from store import DigestEntry
from store.domain.forgetting import (
    Choice,
    chosen_reach,
    matching_reach,
    memory_correct_verdict,
    putback,
    selection_fingerprint,
)
from tests.builders import SCOPES, ada, entry, make_record

MINE_A = entry(make_record("units", "miles", id="m_a"))
MINE_B = entry(make_record("tone", "short", id="m_b"))
ORG = entry(make_record("fiscal", "october", "tenant:berlin", author="human", id="t_fiscal"))
EVERYONE = entry(make_record("holidays", "closed", "global", author="human", id="g_holidays"))
ON_FILE = (MINE_A, MINE_B, ORG, EVERYONE)


@pytest.mark.parametrize(
    ("ids", "goes", "shared", "missing", "allowed"),
    [
        (["m_a"], ["m_a"], [], [], True),
        (["m_b", "m_a"], ["m_b", "m_a"], [], [], True),
        (["m_a", "m_a"], ["m_a"], [], [], True),
        ([], [], [], [], False),
        (["m_a", "t_fiscal"], ["m_a"], ["t_fiscal"], [], False),
        (["g_holidays"], [], ["g_holidays"], [], False),
        (["m_a", "someone-elses"], ["m_a"], [], ["someone-elses"], False),
        (["gone"], [], [], ["gone"], False),
    ],
    ids=["one", "two-in-order", "twice-once", "none", "with-an-org-fact", "everyone", "with-unknown", "unknown"],
)
def test_a_choice_reaches_only_the_persons_own_entries_on_file(
    ids: list[str], goes: list[str], shared: list[str], missing: list[str], allowed: bool
) -> None:
    choice = chosen_reach(ada(), ON_FILE, ids)

    assert [e.record.id for e in choice.goes] == goes
    assert list(choice.shared) == shared
    assert list(choice.missing) == missing
    assert choice.allowed is allowed


@pytest.mark.parametrize(
    ("choice", "says"),
    [
        (Choice(goes=(MINE_A,)), "1 memory of yours goes."),
        (Choice(goes=(MINE_A, MINE_B)), "2 memories of yours go."),
        (Choice(goes=()), "No memory was chosen. Tick the ones to forget, or choose all that match."),
        (Choice(goes=(MINE_A,), shared=("t",)), "1 of the memories you chose is shared with you"),
        (Choice(goes=(), shared=("t", "g")), "2 of the memories you chose are shared with you"),
        (Choice(goes=(MINE_A,), missing=("x",)), "1 of the memories you chose is no longer on file"),
        (Choice(goes=(), missing=("x", "y")), "2 of the memories you chose are no longer on file"),
    ],
)
def test_every_choice_says_why_in_plain_words(choice: Choice, says: str) -> None:
    assert choice.reason.startswith(says)
    assert "scope" not in choice.reason
    if not choice.allowed and choice.goes + choice.shared + choice.missing:
        assert choice.reason.endswith("Nothing was forgotten.")


@pytest.mark.parametrize(
    ("matching", "shared", "goes", "stays"),
    [
        ((MINE_A, ORG, MINE_B, EVERYONE), 0, ["m_a", "m_b"], 2),
        ((ORG,), 0, [], 1),
        ((), 0, [], 0),
        ((MINE_B,), 0, ["m_b"], 0),
        ((MINE_A, MINE_B), 3, ["m_a", "m_b"], 3),
        ((MINE_A, ORG), 2, ["m_a"], 3),
        ((), 4, [], 4),
    ],
)
def test_all_that_match_is_every_own_match_and_shared_facts_stay(
    matching: tuple[DigestEntry, ...], shared: int, goes: list[str], stays: int
) -> None:
    choice = matching_reach(ada(), matching, shared=shared)

    assert [e.record.id for e in choice.goes] == goes
    assert choice.stays == stays
    assert choice.allowed is bool(goes)


def test_a_fingerprint_names_the_set_whatever_its_order_and_changes_with_it() -> None:
    assert selection_fingerprint(["a", "b"]) == selection_fingerprint(["b", "a", "a"])
    assert selection_fingerprint(["a", "b"]) != selection_fingerprint(["a", "b", "c"])
    assert selection_fingerprint(["ab"]) != selection_fingerprint(["a", "b"])


@pytest.mark.parametrize(
    ("scope", "allowed"),
    [("actor:ada", True), ("tenant:berlin", False), ("global", False), ("actor:bob", False)],
)
def test_only_a_memory_at_ones_own_scope_may_be_corrected(scope: str, allowed: bool) -> None:
    verdict = memory_correct_verdict(scope=scope, actor=ada())

    assert verdict.allowed is allowed
    assert scope in verdict.reason


def test_an_undo_puts_back_what_was_not_written_again_and_keeps_what_was() -> None:
    units, tone = make_record("units", "miles", id="m_a"), make_record("tone", "short", id="m_b")
    foreign = make_record("fiscal", "october", "tenant:berlin", id="t_x")
    rewritten = entry(make_record("tone", "long", id="m_new"))

    plan = putback(ada(), [units, tone, foreign], [rewritten, ORG], SCOPES)

    assert plan.restore == (units,)
    assert plan.superseded == (tone,)
    assert plan.refused == ""


def test_an_undo_key_held_only_wider_is_not_superseded() -> None:
    fiscal = make_record("fiscal", "calendar year", id="m_fiscal")

    plan = putback(ada(), [fiscal], [ORG], SCOPES)

    assert plan.restore == (fiscal,)


def test_an_undo_is_refused_when_ones_own_scope_no_longer_applies() -> None:
    plan = putback(ada(), [make_record("units", "miles")], [], ("tenant:berlin", "global"))

    assert plan.restore == ()
    assert "does not apply" in plan.refused
