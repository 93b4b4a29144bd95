"""Every refusal the cores raise is a TemplatedError: code, English template, parameters; the
page translates the template and fills it in, whichever core refused."""

from __future__ import annotations

import re

import pytest
from flask import Flask
from flask_babel import force_locale

from companion.base.errors import TemplatedError
from companion.cardgames import CardGameRuleError, get_game
from companion.legacy import RuleError
from companion.legacy.errors import N_
from companion.web.shell.text_errors import rule_message


def test_both_cores_refuse_with_the_same_shape() -> None:
    legacy = RuleError("player-count", "A chronicle needs 1 to %(limit)d players.", "1.7", limit=8)
    game = CardGameRuleError("bad-seat", "There is no seat %(seat)s.", seat=9)
    for error, code in ((legacy, "player-count"), (game, "bad-seat")):
        assert isinstance(error, TemplatedError) and isinstance(error, ValueError)
        assert error.code == code
    assert str(legacy) == "A chronicle needs 1 to 8 players." and legacy.rule == "1.7"
    assert str(game) == "There is no seat 9."


def test_a_card_game_refusal_is_translated_with_its_parameters(app: Flask) -> None:
    game = get_game("traitors-flame")
    state = game.new(2, 1, {})
    with pytest.raises(CardGameRuleError) as refused:
        game.apply(state, 0, {"type": "nonsense"})
    with app.test_request_context():
        with force_locale("en"):
            english = rule_message(refused.value, "traitors-flame")
        with force_locale("ja"):
            japanese = rule_message(refused.value, "traitors-flame")
    assert refused.value.params and english == str(refused.value)
    assert re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", japanese) and "%(" not in japanese


def test_an_untranslated_template_still_reads_with_its_numbers(app: Flask) -> None:
    error = RuleError("x", N_("Not a message of the catalogue: %(n)s of %(m)d."), "1", n=1234, m=5)
    with app.test_request_context(), force_locale("en"):
        assert rule_message(error) == "Not a message of the catalogue: 1,234 of 5."
