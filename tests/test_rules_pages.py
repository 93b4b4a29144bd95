"""The card games' rules pages: one English source per game, translated block by block."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from conftest import make_app
from flask.testing import FlaskClient
from flask_babel import force_locale, pgettext
from summoners_helpers import speaking
from table_helpers import page

from companion.app import babel
from companion.cardgames import game_keys, get_game
from companion.cardgames.summoners import cards
from companion.text.blocks import blocks
from companion.web.boards.summoners import spirit_list
from companion.web.tables import pages as tables

TRANSLATIONS = Path(__file__).resolve().parents[1] / "companion" / "translations"
JAPANESE = TRANSLATIONS / "ja" / "LC_MESSAGES" / "messages.po"
# Headings and sentences each page shows, and the other language's page must not.
SHOWN = {
    ("traitors-flame", "en"): (
        "<h3>The aim</h3>",
        "<h4>Red (15 cards)</h4>",
        "Night, Before-Dawn and the Flames can never be played.",
        "If you hold no card that can be played, you must draw. You may never pass.",
    ),
    ("traitors-flame", "ja"): (
        "<h3>目的</h3>",
        "<h4>赤（15枚）</h4>",
        "「夜」「夜明け前」「逆臣の炎」は、使うことができません。",
        "使えるカードを1枚も持っていなければ、引くしかありません。パスはできません。",
    ),
    ("age-of-summoners", "en"): (
        "<h3>The aim</h3>",
        "<h4>Phase I: the command number</h4>",
        "Since every number belongs to some action, you can always act.",
        "<h3>The spirits</h3>",
        "There are 30 kinds, listed by colour.",
    ),
    ("age-of-summoners", "ja"): (
        "<h3>目的</h3>",
        "<h4>フェイズI：コマンドナンバーを決める</h4>",
        "どのナンバーにも対応するアクションがあるので、アクションはいつでも行なえます。",
        "<h3>精霊一覧</h3>",
        "全30種類を色ごとに並べています。",
    ),
}
OTHER = {"en": "ja", "ja": "en"}


def rules_page(client: FlaskClient, key: str, lang: str) -> str:
    return html.unescape(page(client, f"/games/{key}/rules?lang={lang}"))


def article(text: str) -> str:
    found = re.search(r'<article class="rules prose">.*?</article>', text, re.S)
    assert found, text[-1500:]
    return found.group(0)


@pytest.fixture
def own_catalogues(monkeypatch: pytest.MonkeyPatch) -> None:
    """Catalogues loaded afresh from this test's folders: Flask-Babel keeps the ones it loaded
    per locale for the whole process, whichever app loaded them."""
    monkeypatch.setattr(babel.domain_instance, "cache", {})


def compile_catalogue(catalogue: Catalog, folder: Path) -> None:
    """``catalogue`` as ``folder/<locale>/LC_MESSAGES/messages.mo``, where Flask-Babel looks."""
    target = folder / str(catalogue.locale) / "LC_MESSAGES" / "messages.mo"
    target.parent.mkdir(parents=True)
    with target.open("wb") as written:
        write_mo(written, catalogue)


@pytest.mark.parametrize(("key", "lang"), sorted(SHOWN))
def test_a_rules_page_reads_in_its_language(client: FlaskClient, key: str, lang: str) -> None:
    text = rules_page(client, key, lang)
    for part in SHOWN[key, lang]:
        assert part in text, part
    for part in SHOWN[key, OTHER[lang]]:
        assert part not in text, part


@pytest.mark.parametrize("key", game_keys())
def test_every_block_of_the_rules_is_in_japanese(key: str) -> None:
    with speaking("ja"):
        translated = {b.text: pgettext(key, b.text) for b in blocks(get_game(key).rules())}
    assert [msgid for msgid, words in translated.items() if words == msgid] == []
    # A hard line break the English has (a card's name, text and lore) stays in the Japanese.
    assert [m for m, words in translated.items() if words.count("\n") != m.count("\n")] == []


@pytest.mark.usefixtures("own_catalogues")
def test_a_block_missing_from_the_catalogue_shows_in_english(tmp_path: Path) -> None:
    sentence = "Night, Before-Dawn and the Flames can never be played."
    with JAPANESE.open("rb") as read:
        catalogue = read_po(read)
    japanese = catalogue.get(sentence, context="traitors-flame").string
    catalogue.delete(sentence, context="traitors-flame")
    compile_catalogue(catalogue, tmp_path / "translations")
    app = make_app(tmp_path, BABEL_TRANSLATION_DIRECTORIES=str(tmp_path / "translations"))
    text = rules_page(app.test_client(), "traitors-flame", "ja")
    assert f"<p>{sentence}</p>" in text and japanese not in text
    assert "<h3>目的</h3>" in text  # the blocks around it are still Japanese


@pytest.mark.usefixtures("own_catalogues")
@pytest.mark.parametrize("key", game_keys())
def test_a_third_language_is_a_catalogue(client: FlaskClient, tmp_path: Path, key: str) -> None:
    english = article(rules_page(client, key, "en"))
    french = Catalog(locale="fr")
    french.add("The aim", "Le but", context=key)
    compile_catalogue(french, tmp_path / "translations")
    directories = f"{TRANSLATIONS};{tmp_path / 'translations'}"
    app = make_app(tmp_path, BABEL_TRANSLATION_DIRECTORIES=directories)
    with app.test_request_context(f"/games/{key}/rules"), force_locale("fr"):
        text = article(html.unescape(tables.rules(key)))
    # Its one translated block, and English wherever the catalogue has nothing yet.
    assert "<h3>Le but</h3>" in text
    assert text == english.replace("<h3>The aim</h3>", "<h3>Le but</h3>")


def test_the_spirit_list_is_made_from_the_card_data(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(cards.kind_words("belial"), "flavour_en", "A fresh line of lore.")
    monkeypatch.setitem(cards.kind_words("belial"), "flavour_ja", "新しい伝承。")
    assert "<em>A fresh line of lore.</em>" in rules_page(client, "age-of-summoners", "en")
    assert "<em>新しい伝承。</em>" in rules_page(client, "age-of-summoners", "ja")


def test_a_spirit_is_named_in_every_other_language(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(spirit_list, "LANGUAGES", ("ja", "en", "fr"))
    monkeypatch.setitem(cards.kind_words("nightmare"), "name_fr", "Cauchemar")
    en = rules_page(client, "age-of-summoners", "en")
    assert "<strong>Nightmare</strong> (ナイトメア, Cauchemar, SU03)" in en
    ja = rules_page(client, "age-of-summoners", "ja")
    assert "<strong>ナイトメア</strong>（Nightmare、Cauchemar、SU03）" in ja


@pytest.mark.parametrize(
    ("lang", "drawn"),
    [
        ("en", ("pay ●black◇any from your mana", "costs 2 fewer ●green.", "never reduces ◇any.")),
        ("ja", ("魔力から●黒◇任意を支払って", "コストは●緑2つ少ない。", "◇任意は軽減できない。")),
    ],
)
def test_the_spirit_list_shows_mana_symbols_as_the_cards_do(
    client: FlaskClient, lang: str, drawn: tuple[str, ...]
) -> None:
    text = rules_page(client, "age-of-summoners", lang)
    for part in drawn:
        assert part in text, part
    assert not re.search(r"\[(black|green|red|yellow|blue|any|黒|緑|赤|黄|青|任意)\]", text)
