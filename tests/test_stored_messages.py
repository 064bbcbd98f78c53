"""Words workers store are rendered in the reader's language when read (``core.messages``): the msgid
is the English fallback, parameters that are data stay as written, a nested message is translated too."""

from __future__ import annotations

from django.utils import translation

from researchapp.core.messages import english, message, plural_message
from researchapp.message_text import message_lines, message_text

DROPPED = "Applied: dropped sub-question %(number)s, “%(text)s”."


def test_a_stored_message_reads_in_the_readers_language_with_its_data_as_written() -> None:
    stored = message(DROPPED, number=2, text="How tall is it?")
    with translation.override("zh-hans"):
        assert message_text(stored) == "已执行：删除了第 2 个子问题“How tall is it?”。"
    with translation.override("en"):
        assert message_text(stored) == "Applied: dropped sub-question 2, “How tall is it?”."
    assert english(stored) == "Applied: dropped sub-question 2, “How tall is it?”."


def test_a_wording_without_translation_or_with_other_parameters_falls_back_to_its_english() -> None:
    # a msgid no catalogue knows (a wording changed since the row was stored) reads as written
    stored = message("Dropped %(n)s of the old wording.", n=3)
    with translation.override("zh-hans"):
        assert message_text(stored) == "Dropped 3 of the old wording."
    # a row stored without the parameter its translation needs still reads, in English
    broken = message(DROPPED, number=2)
    with translation.override("zh-hans"):
        assert message_text(broken) == DROPPED
    # and a row with no message at all shows what it stored
    assert message_text({}, "stored English") == "stored English"


def test_plurals_and_nested_messages() -> None:
    stored = plural_message("%(count)s day", "%(count)s days", 3)
    assert (
        english(stored) == "3 days"
        and english(plural_message("%(count)s day", "%(count)s days", 1)) == "1 day"
    )
    outer = message("Applied: added “%(text)s” for “%(clause)s”.", text="T", clause=message("Remove"))
    with translation.override("zh-hans"):
        assert message_text(outer) == "已执行：为“删除”添加了“T”。"
    assert message_lines([outer, "not a message", None]) == [message_text(outer)]
