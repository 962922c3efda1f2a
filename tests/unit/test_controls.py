"""The rules of a person's say over new memories: pausing, approval, and settling a waiting note."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from store.domain.controls import (
    BEGUN_WHILE_PAUSED,
    MEMORY_PAUSED,
    WAITING_FOR_APPROVAL,
    MemoryControls,
    PendingMemory,
    PendingState,
    approval_required,
    reaches_prompts,
    remember_admission,
    settle_pending,
)

AT = datetime(2026, 12, 1, 9, tzinfo=UTC)
NOTE = PendingMemory("pend_1", "ada", "units", "kilometres", "thr_1", "run_1", AT)


@pytest.mark.parametrize(
    ("paused", "required", "begun_while_paused", "route", "reason"),
    [
        (False, False, False, "write", ""),
        (False, True, False, "hold", WAITING_FOR_APPROVAL),
        (True, False, False, "refuse", MEMORY_PAUSED),
        (True, True, False, "refuse", MEMORY_PAUSED),
        (False, False, True, "refuse", BEGUN_WHILE_PAUSED),
        (False, True, True, "refuse", BEGUN_WHILE_PAUSED),
        (True, False, True, "refuse", MEMORY_PAUSED),
    ],
)
def test_a_pause_now_or_when_the_run_began_refuses_approval_holds_and_otherwise_remember_writes(
    paused: bool, required: bool, begun_while_paused: bool, route: str, reason: str
) -> None:
    controls = MemoryControls(paused=paused, approval_required=required)

    admission = remember_admission(controls, begun_while_paused=begun_while_paused)

    assert (admission.route, admission.reason) == (route, reason)


def test_the_paused_refusal_says_memory_is_paused_and_nothing_was_saved() -> None:
    assert "Memory is paused" in MEMORY_PAUSED
    assert "nothing was saved" in MEMORY_PAUSED


@pytest.mark.parametrize(
    ("choice", "default", "required"),
    [(None, False, False), (None, True, True), (True, False, True), (False, True, False), (True, True, True)],
)
def test_an_organisations_choice_beats_the_deployments_default(
    choice: bool | None, default: bool, required: bool
) -> None:
    assert approval_required(choice, default=default) is required


@pytest.mark.parametrize(("state", "reaches"), [("pending", False), ("approved", True), ("discarded", False)])
def test_only_an_approved_note_reaches_a_prompt(state: PendingState, reaches: bool) -> None:
    assert reaches_prompts(state) is reaches


def test_approving_ones_own_note_writes_it_as_the_assistants_with_its_conversation() -> None:
    settlement = settle_pending("ada", NOTE, "approve")

    assert (settlement.found, settlement.write) == (True, True)
    assert settlement.origin is not None
    assert (settlement.origin.author, settlement.origin.thread_id, settlement.origin.run_id) == (
        "agent",
        "thr_1",
        "run_1",
    )
    assert settlement.origin.actor_ref == "ada"


def test_discarding_ones_own_note_writes_nothing() -> None:
    settlement = settle_pending("ada", NOTE, "discard")

    assert (settlement.found, settlement.write, settlement.origin) == (True, False, None)


@pytest.mark.parametrize("decision", ["approve", "discard"])
@pytest.mark.parametrize(("person", "note"), [("max", NOTE), ("ada", None)])
def test_someone_elses_note_or_none_answers_as_not_found(
    person: str, note: PendingMemory | None, decision: str
) -> None:
    settlement = settle_pending(person, note, "approve" if decision == "approve" else "discard")

    assert (settlement.found, settlement.write) == (False, False)
