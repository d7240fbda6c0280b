"""The capstone's exercise (ex05): a report of a run with one setting changed.

No check runs here: the capstone is judged by its report, and a report is
read by a person. The task asks for something the capstone's printed report
cannot hold: a second run with **one** setting changed (n, k, the time
limit, the seed, the problems), the numbers of both runs, and what the
difference means next to its own uncertainty: read problem by problem (a
paired difference, with t over so few problems), and sample by sample when
the two runs share their samples, never by whether two separate intervals
overlap. Pasting the printed report can meet the first two criteria only:
half the points at most.
"""

from reasoneval_mini.course_map import exercise_notebook_for
from reasoneval_mini.exercises.checks import Criterion, WrittenTask
from reasoneval_mini.support.i18n import N_, FormattedText

#: This exercise set's notebook, as the course map names it.
NOTEBOOK = exercise_notebook_for(__name__).notebook

#: The capstone's settings a learner may change (the names of its parameter cell).
CAPSTONE_SETTINGS = ("N_SAMPLES", "KS", "SEED", "TIMEOUT_S", "PROBLEM_IDS")

#: No checked exercise: the capstone is graded from the written report below.
EXERCISES = ()

#: The written task's statement: a catalogue id (N_), so a literal that spells the settings out;
#: the "95%" is a field, as Babel would read "95% intervals" as a %-placeholder (FormattedText).
_STATEMENT = FormattedText(N_(
    "Run the capstone lesson as it is, then change **one** setting in its parameter "
    "cell (`N_SAMPLES`, `KS`, `SEED`, `TIMEOUT_S`, `PROBLEM_IDS`), run it "
    "again and write, in at most fifteen lines, the report you would hand to someone "
    "who must trust the numbers: (1) the pass@k values with k, n and their {level} "
    "intervals over problems (with a handful of problems, the t interval of lesson "
    "04 §5), and the budget (samples generated, programs executed, time limit); "
    "(2) the counts of all five states and the denominator you used (what happens to "
    "not_run samples); (3) the setting you changed, its old and new value, and the "
    "numbers of both runs side by side; (4) your interpretation: why the numbers "
    "moved (or did not), whether the difference is larger than its own uncertainty "
    "(compare the two runs as lesson 04 §3 does: problem by problem, and say whether "
    "the two runs share their samples), and one limitation of the result. The "
    "printed report of one run holds (1) and (2) only: (3) and (4) are yours."), level="95%")
if "(" + ", ".join(f"`{name}`" for name in CAPSTONE_SETTINGS) + ")" not in _STATEMENT:
    raise ValueError("ex05: the statement must list CAPSTONE_SETTINGS, in order: "
                     + ", ".join(CAPSTONE_SETTINGS))

#: The capstone's written report, graded by the instructor with the rubric. Every number
#: in it is recomputed from a real run of the capstone by
#: tests/exercises/test_capstone_rubric.py (the t intervals, the counts, the paired
#: difference of the worked example); change the capstone and that test says which moved.
WRITTEN_TASKS = (
    WrittenTask(
        id="kp4_capstone_report", notebook=NOTEBOOK, points=8,
        title=N_("The capstone's report, with one setting changed"),
        statement=_STATEMENT,
        rubric=(
            Criterion(
                N_("Numbers and budget"),
                N_("pass@k with k and n, a t interval over the problems, and the budget of the "
                   "run"),
                (N_("a bare pass@k figure, without k, n or an interval"),
                 N_("pass@k with k and n and an interval, but the normal (z = 1.96) interval "
                    "over six problems, which is too narrow (lesson 04 §5), or no budget"),
                 N_("\"pass@1 = 0.375 [0.126, 0.624] (95% t interval, t = 2.571 with 5 degrees "
                    "of freedom, 6 problems, n = 8 per problem, k = 1); 48 samples planned, 46 "
                    "executed, time limit 1 s, seed 0\""))),
            Criterion(
                N_("States and denominator"),
                N_("all five state counts, with not_run kept in the full denominator (or "
                   "re-run), never dropped"),
                (N_("no state counts, or only passed/failed"),
                 N_("all five counts, but the denominator is not stated (or not_run is "
                    "dropped)"),
                 N_("\"passed 18, assertion_failed 11, timeout 6, runtime_error 11, not_run 2 "
                    "of 48 planned; success 18/48: the 2 not_run samples stay in n as "
                    "failures, and coverage 46/48 says so\""))),
            Criterion(
                N_("The changed setting"),
                N_("one setting named with its old and new value, whether the two runs share "
                   "their samples, and the numbers of both runs side by side"),
                (N_("no setting changed, or several at once (the effect of each cannot be told "
                    "apart)"),
                 N_("the setting is named, but the old value or the second run's numbers are "
                    "missing, or the report does not say that the same seed re-scores the same "
                    "samples"),
                 N_("\"TIMEOUT_S 1.0 -> 0.05, all else equal; the same seed, so the same 48 "
                    "programs run again: timeout 6 -> (new count), pass@1 0.375 -> (new "
                    "value), and the samples whose state changed, by sample id\""))),
            Criterion(
                N_("Interpretation and limit"),
                N_("why the numbers moved; the difference judged problem by problem, or sample "
                   "by sample when the runs share their samples (never by two separate "
                   "intervals); one honest limitation"),
                (N_("no interpretation, or a claim the numbers do not support (\"the model got "
                    "worse\")"),
                 N_("why the numbers moved, but the difference is judged from the two separate "
                    "intervals (a value inside the other run's interval, or intervals that "
                    "overlap, taken for no difference), or no limitation"),
                 N_("\"The same 48 programs ran twice, so the runs are coupled: 2 samples of "
                    "HumanEval/0 went from passed to timeout and nothing else changed. They are "
                    "the whole difference, observed, not estimated: pass@1 falls by 2/48 = "
                    "0.042, the harness, not the model (re-run them to rule out timing noise). "
                    "Whether so tight a limit costs as much on other problems is for the paired "
                    "t interval of the per-problem differences, [-0.149, 0.065]: six problems "
                    "cannot tell. The completions are synthetic, not a real model's.\""))),
        ),
    ),
)
