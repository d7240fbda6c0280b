"""An exception across the boundary: bounded plain fields in the child, a harmless stand-in outside."""

import json

import pytest

from reasoneval_mini.runner.exceptions import (
    MAX_MESSAGE_CHARS, UNREADABLE, describe_exception, rebuild_exception)


class OutOfRange(LookupError):
    pass


class Hostile(ValueError):
    def __str__(self):
        raise RuntimeError("no message for you")


class _LyingMeta(type):
    def __getattribute__(cls, name):
        if name == "__qualname__":
            raise RuntimeError("no name for you")
        return super().__getattribute__(name)


class Nameless(Exception, metaclass=_LyingMeta):
    pass


def test_the_fields_are_plain_json_and_name_the_class_its_module_and_its_builtin_base():
    fields = describe_exception(OutOfRange("n = -1"))
    assert json.loads(json.dumps(fields)) == fields
    assert fields == {"exception": f"{__name__}.OutOfRange", "type": "OutOfRange",
                      "builtin": "LookupError", "message": "n = -1", "assertion": False,
                      "system_exit": False}


def test_a_builtin_keeps_its_bare_name_and_an_assertion_and_an_exit_say_so():
    assert describe_exception(AssertionError("x"))["exception"] == "AssertionError"
    assert describe_exception(AssertionError("x"))["assertion"] is True
    leaving = describe_exception(SystemExit("bye"))
    assert (leaving["system_exit"], leaving["exit_code"]) == (True, repr("bye"))


def test_a_syntax_error_gives_its_msg_without_the_file_and_line():
    try:
        compile("1 +", "<program>", "exec")
    except SyntaxError as error:
        caught = error
    assert describe_exception(caught)["message"] == caught.msg
    assert "line" not in caught.msg and "line" in str(caught)


def test_a_long_message_and_a_long_exit_code_are_cut_to_the_bound():
    fields = describe_exception(ValueError("x" * (10 * MAX_MESSAGE_CHARS)))
    assert fields["message"] == "x" * MAX_MESSAGE_CHARS
    assert len(describe_exception(SystemExit("y" * 5000))["exit_code"]) == MAX_MESSAGE_CHARS


def test_a_hostile_str_or_class_gives_a_description_not_an_error():
    assert describe_exception(Hostile())["message"] == "<message could not be read>"
    assert describe_exception(Hostile())["builtin"] == "ValueError"
    assert describe_exception(Nameless()) == UNREADABLE


def test_the_stand_in_acts_like_the_original_for_except_and_shows_one_line():
    stand_in = rebuild_exception(describe_exception(OutOfRange("line one\nline two")))
    with pytest.raises(LookupError) as caught:
        raise stand_in
    assert type(caught.value).__name__ == "OutOfRange"
    assert str(caught.value) == "line one / line two"


@pytest.mark.parametrize("fields", [
    {"type": "KeyboardInterrupt", "builtin": "KeyboardInterrupt", "message": ""},
    {"type": "GeneratorExit", "builtin": "GeneratorExit"},
    {"type": "x y", "builtin": "open"},  # no class name, and a builtin that is no class
    {}, "not a dict", None,
], ids=repr)
def test_forged_fields_give_an_ordinary_exception(fields):
    stand_in = rebuild_exception(fields)
    assert type(stand_in).__mro__[1] is Exception
    assert not isinstance(stand_in, (KeyboardInterrupt, GeneratorExit))
