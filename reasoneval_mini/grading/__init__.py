"""Grading a class: one folder of notebooks per student, one grade per (student, exercise).

In the order a grading run goes:

* ``lms_download``: a Canvas or Moodle download placed as one folder per student;
* ``submissions``: which students there are and which notebook is whose;
* ``grader``: the class loop (students in parallel, one grade per exercise);
* ``process``: one student's run, a session of :mod:`reasoneval_mini.runner`
  (the notebooks' cells, then calls to the answers), judged here;
* ``context``: whether the course's own code runs inside a grading process;
* ``notebooks``: reading a notebook, and the cells a grading process runs;
* ``instructor_checks``: the registry and the hidden tests, loaded before any
  student code runs;
* ``statuses``: the closed set of grade statuses;
* ``escaping``: student text made printable and inert for every output file;
* ``reports``: ``grades.csv``, the totals and the Markdown feedback;
* ``manual``: hand grading of written tasks (the scores sheet by criterion, ``--manual``);
* ``review_pages``: the rendered, sanitised review page of each written task;
* ``merge_record``: the sheet merged last and the hand scores each export holds;
* ``gradebook``: the roster and the Canvas or Moodle gradebook CSV;
* ``similarity``: answers that look alike (fingerprints, then a close comparison);
* ``class_report``: the Markdown class report and its two figures;
* ``progress``: the same machinery for one learner's own folder.
"""
