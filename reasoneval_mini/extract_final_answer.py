"""GSM8K's final-answer protocol: a task rule, not a general cleaner."""

GSM8K_MARKER = "####"


def extract_final_answer(text, marker=GSM8K_MARKER):
    """Return the answer written after the last *marker* in *text*.

    This is GSM8K's task protocol: solutions end with ``#### <answer>``. The
    answer is the rest of the line after the last marker, with every comma
    removed (GSM8K writes thousands as ``1,080``) and surrounding whitespace
    stripped. Returns ``None`` when the marker does not occur at all; an
    empty answer after the marker is returned as ``""`` and is left for the
    equivalence check to reject.

    It removes commas and nothing else: ``$``, ``%`` and units stay, so a
    prediction such as ``"#### $5"`` is still outside the numeric answer
    space. That is deliberate: deciding that ``$5`` means ``5`` is a
    decision for the task, not for a universal cleaner.

    Raises ``TypeError`` if *text* is not a ``str`` and ``ValueError`` if
    *marker* is not a non-empty ``str``.

    >>> extract_final_answer("6 * 180 = 1,080 minutes\\n#### 1,080")
    '1080'

    Extraction and equivalence compose: extract from both sides, then compare.

    >>> from reasoneval_mini import numeric_equivalence
    >>> numeric_equivalence(extract_final_answer("so #### 1080.0"),
    ...                     extract_final_answer("#### 1,080"))
    True

    Surprising: the last marker wins, and a comma is removed wherever it is.

    >>> extract_final_answer("#### 3 wait, no.\\n#### 4")
    '4'
    >>> extract_final_answer("#### 1,2")
    '12'
    >>> print(extract_final_answer("The answer is 42."))
    None
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}: {text!r}")
    if not isinstance(marker, str) or not marker:
        raise ValueError(f"marker must be a non-empty str, got {marker!r}")
    before, found, after = text.rpartition(marker)
    if not found:
        return None
    line = after.split("\n", 1)[0]
    return line.replace(",", "").strip()
