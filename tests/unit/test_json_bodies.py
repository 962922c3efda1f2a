"""The strict decoder behind every JSON body (`web.kit.json_bodies.decode_strictly`): each problem named
by the path the client sent it under, and a body no decoder should descend into refused as such."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from web.kit.api_errors import TOO_DEEP, problem_message
from web.kit.json_bodies import RefusedBodyError, decode_strictly


class Inner(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    tenant_ref: str
    roles: list[str] = msgspec.field(default_factory=list)


class Outer(msgspec.Struct, forbid_unknown_fields=True):
    actor: Inner
    pinned: bool = False


@pytest.mark.parametrize(
    ("body", "said"),
    [
        pytest.param(
            b'{"actor": {"tenantRef": "b"}, "pinned": "true"}', "pinned: Expected `bool`, got `str`", id="root"
        ),
        pytest.param(b'{"actor": {"tenantRef": 1}}', "actor.tenantRef: Expected `str`, got `int`", id="nested"),
        pytest.param(
            b'{"actor": {"tenantRef": "b", "roles": [1]}}', "actor.roles[0]: Expected `str`, got `int`", id="item"
        ),
        pytest.param(b'{"actor": {"tenantRef": "b"}, "x": 1}', "Unknown field `x`", id="unknown"),
        pytest.param(b'{"actor": {"tenantRef": "b", "x": 1}}', "Unknown field `actor.x`", id="unknown-nested"),
        pytest.param(b'{"actor": {}}', "Missing required field `actor.tenantRef`", id="missing-nested"),
        pytest.param(b"[]", "Expected `object`, got `array`", id="not-an-object"),
    ],
)
def test_each_problem_is_named_by_the_path_it_was_sent_under(body: bytes, said: str) -> None:
    with pytest.raises(RefusedBodyError) as refused:
        decode_strictly(body, Outer)

    assert problem_message(refused.value) == f"The request is not valid: {said}"
    assert refused.value.status_code == 400


def test_a_value_is_never_converted_from_another_type() -> None:
    assert decode_strictly(b'{"actor": {"tenantRef": "b"}, "pinned": true}', Outer) == Outer(Inner("b"), pinned=True)


def test_a_body_nested_deeper_than_the_decoder_goes_is_refused_as_such() -> None:
    with pytest.raises(RefusedBodyError) as refused:
        decode_strictly(b"[" * 100_000 + b"]" * 100_000, list[Any])

    assert problem_message(refused.value) == TOO_DEEP
