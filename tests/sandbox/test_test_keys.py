"""The host's content keys of stdin tests (sandbox/_test_keys.py)."""

from __future__ import annotations

import hashlib

from judge_service.sandbox import _test_keys


def test_a_key_is_the_sha256_of_the_utf8_text_and_the_size_its_bytes() -> None:
    text = "é" * (_test_keys.REMEMBER_FROM + 1)
    content = _test_keys.content_of(text)
    assert content.key == hashlib.sha256(text.encode()).hexdigest()
    assert content.size == 2 * len(text) and content.encoded() == text.encode()


def test_a_large_text_judged_again_is_not_hashed_again() -> None:
    text = "1 " * _test_keys.REMEMBER_FROM
    first = _test_keys.content_of(text)
    assert _test_keys.content_of(text) is first
    equal = "".join(["1 "] * _test_keys.REMEMBER_FROM)  # equal, but another object
    assert equal is not text
    again = _test_keys.content_of(equal)
    assert again is not first and again.key == first.key


def test_remembered_texts_are_bounded_in_bytes() -> None:
    remembered = _test_keys._Remembered(max_bytes=3 * _test_keys.REMEMBER_FROM)
    texts = [str(digit) * _test_keys.REMEMBER_FROM for digit in range(5)]
    contents = [remembered.content(text) for text in texts]
    assert remembered.bytes <= 3 * _test_keys.REMEMBER_FROM and len(remembered.entries) == 3
    assert remembered.content(texts[-1]) is contents[-1]  # kept
    assert remembered.content(texts[0]) is not contents[0]  # dropped, hashed again
    assert remembered.content(texts[0]).key == contents[0].key


def test_small_texts_are_not_remembered() -> None:
    remembered = _test_keys._Remembered(max_bytes=1 << 20)
    remembered.content("1 2\n")
    assert not remembered.entries
