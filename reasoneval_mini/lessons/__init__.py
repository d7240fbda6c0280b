"""What the lesson notebooks call: explorers, plots, simulations, synthetic samples, tables.

Lessons import these and define no library code of their own. By lesson:

* 00: ``doctor`` (is this machine ready);
* 01: ``answer_pipelines`` (three scorers side by side, GSM8K-style scoring),
  ``answer_explorer``, ``answer_differential`` (raw vs normalised answers, and
  the course's pipeline against math-verify);
* 02: ``pass_at_k_plots``, ``pass_at_k_explorer``, ``estimator_bias`` (the
  plug-in's bias, exactly and by simulation);
* 03: ``synthetic_completions`` and ``sample_pool`` (what a model might have
  written, drawn reproducibly), ``execution_explorer``, ``harnesses`` (how weak
  harnesses misname states);
* 04: ``uncertainty`` (where the noise of a mean pass@k comes from, intervals,
  paired comparisons and power, each in closed form and by redrawing a made-up
  benchmark), ``power_explorer``;
* 05: ``evaluation_report`` (per-problem pass@k, the budget, the hand-in report).
* 01, 02, 04, 05: ``in_lesson_checks`` (the checks of the "your turn" cells, where the
  learner writes the key computation before a library function does it).
"""
