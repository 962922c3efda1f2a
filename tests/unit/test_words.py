"""What a word is, in every script: ICU's word breaks, then the punctuation inside a word separates."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from store.domain.relevance import query_words, record_words, text_words


@pytest.mark.parametrize(
    ("text", "words"),
    [
        pytest.param(
            "Could you remind me which units we report the distances in?",
            ["could", "you", "remind", "me", "which", "units", "we", "report", "the", "distances", "in"],
            id="english",
        ),
        pytest.param("fiscal-year, fiscal_year e-mail", ["fiscal", "year", "fiscal_year", "e", "mail"], id="hyphens"),
        pytest.param(
            "Ada's depot doesn't open; l'entrepôt d’Ada",
            ["ada", "s", "depot", "doesn", "t", "open", "l", "entrepôt", "d", "ada"],
            id="apostrophes",
        ),
        pytest.param(
            "ada@example.com https://example.com/a_b?x=1 U.S.A.",
            ["ada", "example", "com", "https", "example", "com", "a_b", "x", "1", "u", "s", "a"],
            id="addresses",
        ),
        pytest.param("ÜBER die Straße, über uber", ["über", "die", "strasse", "über", "uber"], id="german"),
        pytest.param("Ｆｉｓｃａｌ ﬁle Ⅻ", ["fiscal", "file", "xii"], id="compatibility-forms"),
    ],
)
def test_latin_words_are_runs_of_letters_digits_and_underscores_as_before(text: str, words: list[str]) -> None:
    assert text_words(text) == words


@pytest.mark.parametrize(
    ("text", "words"),
    [
        pytest.param("fiscal_year __init__ _x", ["fiscal_year", "__init__", "_x"], id="joining"),
        pytest.param("_ __ a _ b ___", ["a", "b"], id="alone"),
        pytest.param("_@_ x@_", ["x"], id="beside-punctuation-icu-joins"),
    ],
)
def test_underscores_join_a_word_but_are_no_word_alone(text: str, words: list[str]) -> None:
    assert text_words(text) == words


@pytest.mark.parametrize(
    ("text", "words"),
    [
        pytest.param("他们用公里报告距离", ["他们", "用", "公里", "报告", "距离"], id="chinese"),
        pytest.param("我们的仓库在柏林。", ["我们", "的", "仓库", "在", "柏林"], id="chinese-punctuated"),
        pytest.param("日本語のラベル", ["日本語", "の", "ラベル"], id="japanese"),
        pytest.param(
            "倉庫は何時に開きますか", ["倉庫", "は", "何時", "に", "開き", "ます", "か"], id="japanese-kanji-kana"
        ),
        pytest.param("ｶﾀｶﾅ カタカナ", ["カタカナ", "カタカナ"], id="half-width-katakana"),
        pytest.param("ภาษาไทยง่ายนิดเดียว", ["ภาษา", "ไทย", "ง่าย", "นิด", "เดียว"], id="thai"),
    ],
)
def test_chinese_japanese_and_thai_are_cut_into_words_though_written_without_spaces(
    text: str, words: list[str]
) -> None:
    assert text_words(text) == words


@pytest.mark.parametrize(
    ("text", "words"),
    [
        pytest.param("हिन्दी भाषा", ["हिन्दी", "भाषा"], id="hindi"),
        pytest.param("ง่าย", ["ง่าย"], id="thai"),
        pytest.param("e\u0301te\u0301", ["été"], id="decomposed-latin"),
    ],
)
def test_combining_marks_belong_to_their_word(text: str, words: list[str]) -> None:
    assert text_words(text) == words


@pytest.mark.parametrize(
    ("text", "words"),
    [
        pytest.param("OnFile用公里report", ["onfile", "用", "公里", "report"], id="latin-han-latin"),
        pytest.param("Berlin倉庫 ok", ["berlin", "倉庫", "ok"], id="latin-kanji"),
        pytest.param("Ada说：距离用公里", ["ada", "说", "距离", "用", "公里"], id="full-width-colon"),
    ],
)
def test_a_change_of_script_divides_words(text: str, words: list[str]) -> None:
    assert text_words(text) == words


@pytest.mark.parametrize(
    ("text", "words"),
    [
        pytest.param("", [], id="empty"),
        pytest.param("  ?! — … «» „“ ", [], id="punctuation-only"),
        pytest.param("😀🔥 👍🏽 🇩🇪", [], id="emoji-only"),
        pytest.param("pallet👍labels 😀距离", ["pallet", "labels", "距离"], id="emoji-between-words"),
        pytest.param("\x00pallet\x00", ["pallet"], id="control-characters"),
        pytest.param("𠮷野家で 😀 x", ["𠮷", "野家", "で", "x"], id="beyond-the-basic-plane"),
    ],
)
def test_emoji_and_punctuation_are_only_separators(text: str, words: list[str]) -> None:
    assert text_words(text) == words


@pytest.mark.parametrize(
    ("text", "words"),
    [
        pytest.param("42 10km 3rd", ["42", "10km", "3rd"], id="digits-and-letters"),
        pytest.param("3.14 1,000 v2.0 12:30", ["3", "14", "1", "000", "v2", "0", "12", "30"], id="separators"),
        pytest.param("① ½", ["1", "1", "2"], id="compatibility-numbers"),
        pytest.param("٣٤ ۱۲۳", ["٣٤", "۱۲۳"], id="arabic-indic-digits"),
    ],
)
def test_numbers_are_words_and_the_punctuation_in_them_divides_them(text: str, words: list[str]) -> None:
    assert text_words(text) == words


def test_a_chinese_record_and_turn_share_their_words() -> None:
    held = record_words("单位", "他们用公里报告距离")

    asked = query_words("距离是多少？距离！")

    assert asked == ("距离", "是", "多少")
    assert set(asked) & set(held) == {"距离"}


def test_threads_cutting_words_at_once_each_get_their_own_words() -> None:
    texts = ["他们用公里报告距离", "ภาษาไทยง่ายนิดเดียว", "fiscal-year starts in October", "倉庫は何時に開きますか"] * 50
    expected = [text_words(text) for text in texts]

    with ThreadPoolExecutor(max_workers=8) as pool:
        found = list(pool.map(text_words, texts))

    assert found == expected
