"""Gradescope's results.json, as its autograder specification describes it
(gradescope-autograders.readthedocs.io, "Autograder Specifications", the
"Output format" section): the fields it names, their types, the visibility
values, and a score either at the top or on every test. The tests of the
autograder package check every results.json they see with it."""

TOP_FIELDS = {"score", "execution_time", "output", "output_format", "test_output_format",
              "test_name_format", "visibility", "stdout_visibility", "extra_data", "tests",
              "leaderboard"}
TEST_FIELDS = {"score", "max_score", "status", "name", "name_format", "number", "output",
               "output_format", "tags", "visibility", "extra_data"}
VISIBILITY = {"hidden", "after_due_date", "after_published", "visible"}
STATUS = {"passed", "failed"}


def problems(results):
    """What in `results` the specification does not allow (empty: none)."""
    found = []
    if not isinstance(results, dict):
        return ["the file is not a JSON object"]
    found += [f"unknown top-level field {k!r}" for k in sorted(set(results) - TOP_FIELDS)]
    for key in ("visibility", "stdout_visibility"):
        if key in results and results[key] not in VISIBILITY:
            found.append(f"{key} {results[key]!r} is not one of {sorted(VISIBILITY)}")
    if "output" in results and not isinstance(results["output"], str):
        found.append("output is not a string")
    tests = results.get("tests", [])
    if not isinstance(tests, list):
        return found + ["tests is not a list"]
    if "score" not in results and (not tests or any("score" not in t for t in tests)):
        found.append("no top-level score, and not every test has one")
    if "score" in results and not isinstance(results["score"], (int, float)):
        found.append("score is not a number")
    for i, test in enumerate(tests):
        where = f"tests[{i}]"
        found += [f"{where}: unknown field {k!r}" for k in sorted(set(test) - TEST_FIELDS)]
        for key in ("score", "max_score"):
            if key in test and not isinstance(test[key], (int, float)):
                found.append(f"{where}: {key} is not a number")
        for key in ("name", "output"):
            if key in test and not isinstance(test[key], str):
                found.append(f"{where}: {key} is not a string")
        if test.get("visibility", "visible") not in VISIBILITY:
            found.append(f"{where}: visibility {test['visibility']!r}")
        if test.get("status", "passed") not in STATUS:
            found.append(f"{where}: status {test['status']!r}")
    return found
