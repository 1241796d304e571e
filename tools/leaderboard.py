#!/usr/bin/env python3
"""`./lab leaderboard FILE...`: students' benchmark result files ranked by
each figure's ratio to its same-run anchor (docs/course-staff.md,
"A leaderboard"; the files' format: docs/results-format.md).

Usage: leaderboard.py FILE... [--out DIR] [--gpu MODEL]

Writes DIR/leaderboard.md (Markdown tables), DIR/leaderboard.html (the same
tables and an SVG bar chart of each board's scores, inline: no image
library) and DIR/leaderboard.json (cudalab.leaderboard/1, what the viewer's
leaderboard view reads); DIR defaults to results/leaderboard. Prints the
Markdown, and each rejected file with its reason on stderr.

One board per lab. Its rows are the figures of the lab's own kernels (those
with `fraction_of`, leaving out the libraries' versions: cublas*, torch*,
pytorch*, nccl), ranked by ratio = value / the value of the anchor it names,
both from the same file. A student's score is the geometric mean of their
ratios over the figures every ranked file of the board has.

A file is rejected, with its name and the reason, when:
- it is not JSON, or not a cudalab.result/1 or /2 file, or a field the
  ranking reads is missing or of the wrong type;
- it ran on the emulator (no GPU), or its GPUs are of different models, or
  its GPU model is not the board's: ratios of different GPU models are not
  compared. The board's model is --gpu, else the model of most of the lab's
  files (the first in name order on a tie);
- a figure failed its check (its `check` says passed: false, or a note
  says "K wrong elements" as lab 04's bench writes it) or its `errors` are
  not finite numbers >= 0;
- a figure's `fraction_of` names an anchor the file lacks or of another
  unit, or states a ratio that is not value / anchor (the file was edited);
- a later file of the same student and lab supersedes it (by `date`).
The student is the file name's part before `-labNN` (alice-lab01-42.json:
alice), else the name without .json.
Exit status: 0 when some file was ranked, 1 when none, 2 for bad usage.
"""
import argparse
import html
import json
import math
import pathlib
import re
import sys

SCHEMAS = ("cudalab.result/1", "cudalab.result/2")
LIBRARY_VERSION = re.compile(r"^(cublas|torch|pytorch|nccl$)")
# What lab 04's bench notes when a collective's output had wrong elements.
WRONG_NOTE = re.compile(r"\b[1-9]\d* wrong elements\b")
RATIO_TOLERANCE = 1e-9  # relative: the writer stores value / anchor as computed


TYPE_NAMES = {str: "a string", dict: "an object", list: "an array", int: "an integer",
              float: "a number", bool: "a boolean"}


class Rejected(Exception):
    pass


def student_of(path):
    stem = path.name[:-5] if path.name.endswith(".json") else path.name
    match = re.match(r"^(.+?)-lab\d\d(?:\b|_|-)", stem)
    return match[1] if match else stem


def need(obj, key, kind, where):
    """obj[key] of type kind, else Rejected naming the field."""
    if not isinstance(obj, dict) or key not in obj or obj[key] is None:
        raise Rejected(f"field '{where}{key}' is missing")
    value = obj[key]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds):
        names = " or ".join(TYPE_NAMES[k] for k in kinds)
        raise Rejected(f"field '{where}{key}' is not {names}")
    if isinstance(value, float) and not math.isfinite(value):
        raise Rejected(f"field '{where}{key}' is not finite")
    return value


NUMBER = (float, int)


def gpu_model(data):
    gpu = data.get("gpu")
    if gpu is None:
        raise Rejected("it ran on the CPU emulator (gpu is null): there is no GPU figure to rank")
    name = need(gpu, "name", str, "gpu.")
    gpus = data.get("gpus") or []
    if not isinstance(gpus, list):
        raise Rejected("field 'gpus' is not an array")
    models = {need(g, "name", str, f"gpus[{i}].") for i, g in enumerate(gpus)} | {name}
    if len(models) > 1:
        raise Rejected(f"its GPUs are of different models ({', '.join(sorted(models))}): "
                       f"its figures compare with no one board")
    return name


def read(path):
    """The rankable figures of one file, or Rejected with the reason."""
    try:
        data = json.loads(path.read_text())
    except OSError as e:
        raise Rejected(f"cannot be read: {e.strerror}") from e
    except UnicodeDecodeError as e:
        raise Rejected(f"is not text: {e}") from e
    except json.JSONDecodeError as e:
        raise Rejected(f"is not JSON (truncated or malformed): {e.msg} (line {e.lineno}, "
                       f"column {e.colno})") from e
    if not isinstance(data, dict):
        raise Rejected("is not a result file (not a JSON object)")
    schema = need(data, "schema", str, "")
    if schema not in SCHEMAS:
        raise Rejected(f"is not a result file of a known version (schema {schema!r}; "
                       f"known: {', '.join(SCHEMAS)})")
    lab = need(data, "lab", str, "")
    if not re.match(r"^\d\d_", lab):
        raise Rejected(f"field 'lab' is {lab!r}, no lab's folder name (e.g. 01_broadcast)")
    date = need(data, "date", str, "")
    revision = need(data, "git_revision", str, "")
    model = gpu_model(data)
    ranks = data.get("ranks") or 1
    anchors = {}
    for i, anchor in enumerate(need(data, "anchors", list, "")):
        where = f"anchors[{i}]."
        anchors[need(anchor, "name", str, where)] = (need(anchor, "value", NUMBER, where),
                                                     need(anchor, "unit", str, where))
    notes = data.get("notes") or []
    if not isinstance(notes, list):
        raise Rejected("field 'notes' is not an array")
    for i, note in enumerate(notes):
        if isinstance(note, str) and (WRONG_NOTE.search(note) or "WRONG RESULT" in note):
            raise Rejected(f"notes[{i}] says a version failed its check: {note}")
    rows = []
    for i, figure in enumerate(need(data, "figures", list, "")):
        where = f"figures[{i}]."
        name = need(figure, "name", str, where)
        version = need(figure, "version", str, where)
        shape = need(figure, "shape", list, where)
        value = need(figure, "value", NUMBER, where)
        unit = need(figure, "unit", str, where)
        label = f"{name} {version} {'x'.join(map(str, shape))}"
        check = figure.get("check")
        if check is not None:
            if not isinstance(check, dict):
                raise Rejected(f"field '{where}check' is not an object")
            if need(check, "passed", bool, where + "check.") is not True:
                what = check.get("what") or "no reason given"
                raise Rejected(f"{where[:-1]} ({label}) failed its check: {what}")
        errors = figure.get("errors")
        if errors is not None:
            if not isinstance(errors, dict):
                raise Rejected(f"field '{where}errors' is not an object")
            for key in ("max_abs", "max_rel", "normwise"):
                if errors.get(key) is not None:
                    error = need(errors, key, NUMBER, where + "errors.")
                    if error < 0:
                        raise Rejected(f"field '{where}errors.{key}' is negative")
        if schema.endswith("/1"):
            fraction = figure.get("fraction_of_copy")
            fraction = None if fraction is None else {"anchor": "copy_bandwidth",
                                                      "value": fraction}
        else:
            fraction = figure.get("fraction_of")
        if fraction is None:
            continue
        anchor = need(fraction, "anchor", str, where + "fraction_of.")
        stated = need(fraction, "value", NUMBER, where + "fraction_of.")
        if anchor not in anchors:
            raise Rejected(f"field '{where}fraction_of.anchor' names anchor {anchor!r}, "
                           f"which is not in 'anchors'")
        anchor_value, anchor_unit = anchors[anchor]
        if anchor_unit != unit:
            raise Rejected(f"{where[:-1]} ({label}) is in {unit} and its anchor {anchor!r} "
                           f"in {anchor_unit}")
        if anchor_value <= 0:
            raise Rejected(f"anchor {anchor!r} is {anchor_value}: no ratio to it")
        ratio = value / anchor_value
        if abs(ratio - stated) > RATIO_TOLERANCE * max(abs(ratio), abs(stated)):
            raise Rejected(f"{where[:-1]} ({label}) states a ratio of {stated:.6g} to "
                           f"{anchor!r}, but its value {value:.6g} / the anchor's "
                           f"{anchor_value:.6g} is {ratio:.6g}: the file was edited")
        if LIBRARY_VERSION.match(version):
            continue
        rows.append({"name": name, "version": version, "shape": shape, "unit": unit,
                     "anchor": anchor, "value": value, "ratio": ratio})
    if not rows:
        raise Rejected("has no figure of the lab's own kernels with a ratio to an anchor")
    return {"file": str(path), "student": student_of(path), "lab": lab, "gpu": model,
            "ranks": ranks, "date": date, "git_revision": revision, "figures": rows}


def key_of(row):
    return (row["name"], row["version"], tuple(row["shape"]))


def build(paths, gpu=None):
    """(boards, rejected): the aggregated leaderboard and [{file, reason}]."""
    accepted, rejected = [], []
    for path in paths:
        try:
            accepted.append(read(path))
        except Rejected as e:
            rejected.append({"file": str(path), "reason": str(e)})
    boards = []
    for lab in sorted({r["lab"] for r in accepted}):
        files = sorted((r for r in accepted if r["lab"] == lab), key=lambda r: r["file"])
        counts = {}
        for r in files:
            counts[r["gpu"]] = counts.get(r["gpu"], 0) + 1
        model = gpu or max(counts, key=lambda m: (counts[m], -[r["gpu"] for r in files].index(m)))
        kept = []
        for r in files:
            if r["gpu"] != model:
                why = "--gpu" if gpu else f"the model of most of its {len(files)} files"
                rejected.append({"file": r["file"], "reason": (
                    f"ran on {r['gpu']}; lab {lab[:2]}'s board ranks {model} ({why}): ratios "
                    f"of different GPU models are not compared (rank them with --gpu "
                    f"'{r['gpu']}')")})
            else:
                kept.append(r)
        latest = {}
        for r in kept:
            other = latest.get(r["student"])
            if other is None or (r["date"], r["file"]) > (other["date"], other["file"]):
                latest[r["student"]] = r
        for r in kept:
            if latest[r["student"]] is not r:
                rejected.append({"file": r["file"], "reason": (
                    f"superseded by {latest[r['student']]['file']}, a later run of "
                    f"{r['student']}'s lab {lab[:2]}")})
        entries = list(latest.values())
        if not entries:
            continue
        common = set.intersection(*({key_of(f) for f in e["figures"]} for e in entries))
        for e in entries:
            ratios = [f["ratio"] for f in e["figures"] if key_of(f) in common]
            e["score"] = (math.exp(sum(math.log(max(x, 1e-300)) for x in ratios) / len(ratios))
                          if ratios else None)
        entries.sort(key=lambda e: (-(e["score"] or 0), e["student"]))
        overall = [{"rank": i + 1, "student": e["student"], "score": e["score"],
                    "figures": len(common), "ranks": e["ranks"], "date": e["date"],
                    "git_revision": e["git_revision"], "file": e["file"]}
                   for i, e in enumerate(entries)]
        figures = []
        for key in sorted({key_of(f) for e in entries for f in e["figures"]}):
            rows = []
            for e in entries:
                for f in e["figures"]:
                    if key_of(f) == key:
                        rows.append({"student": e["student"], "ratio": f["ratio"],
                                     "value": f["value"], "file": e["file"]})
                        unit, anchor = f["unit"], f["anchor"]
            rows.sort(key=lambda r: (-r["ratio"], r["student"]))
            for i, r in enumerate(rows):
                r["rank"] = i + 1
            figures.append({"name": key[0], "version": key[1], "shape": list(key[2]),
                            "unit": unit, "anchor": anchor, "rows": rows})
        boards.append({"lab": lab, "gpu": model, "score_over": len(common),
                       "overall": overall, "figures": figures})
    rejected.sort(key=lambda r: r["file"])
    return boards, rejected


def shape_text(shape):
    return "x".join(map(str, shape))


def markdown(boards, rejected):
    out = ["# Leaderboard", ""]
    for b in boards:
        out += [f"## Lab {b['lab']} on {b['gpu']}", "",
                f"Score: the geometric mean of each figure's ratio to its same-run anchor, "
                f"over the {b['score_over']} figures every ranked file has.", "",
                "| rank | student | score | date | revision |", "|---:|---|---:|---|---|"]
        for o in b["overall"]:
            score = "-" if o["score"] is None else f"{o['score']:.3f}"
            out.append(f"| {o['rank']} | {o['student']} | {score} | {o['date']} | "
                       f"{o['git_revision']} |")
        out.append("")
        for f in b["figures"]:
            out += [f"### {f['name']} {f['version']} {shape_text(f['shape'])} "
                    f"(ratio to {f['anchor']})", "",
                    f"| rank | student | ratio | {f['unit']} |", "|---:|---|---:|---:|"]
            out += [f"| {r['rank']} | {r['student']} | {r['ratio']:.3f} | {r['value']:.1f} |"
                    for r in f["rows"]]
            out.append("")
    if rejected:
        out += ["## Not ranked", "", "| file | why |", "|---|---|"]
        out += [f"| {r['file']} | {r['reason'].replace('|', '/')} |" for r in rejected]
        out.append("")
    return "\n".join(out)


def svg_bars(board):
    """An SVG bar chart of a board's scores (inline in the HTML)."""
    rows = [o for o in board["overall"] if o["score"] is not None]
    if not rows:
        return ""
    top = max(max(o["score"] for o in rows), 1.0)
    bar_h, label_w, width = 22, 160, 420
    height = bar_h * len(rows) + 30
    one = label_w + width / top  # x of ratio 1.0: as fast as the anchor
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{label_w + width + 60}" '
             f'height="{height}" role="img" aria-label="scores of lab {board["lab"]}">']
    for i, o in enumerate(rows):
        y = 5 + i * bar_h
        w = width * o["score"] / top
        parts.append(f'<text x="{label_w - 6}" y="{y + 15}" text-anchor="end">'
                     f'{html.escape(o["student"])}</text>')
        parts.append(f'<rect x="{label_w}" y="{y}" width="{w:.1f}" height="{bar_h - 4}" '
                     f'fill="#4a7bd0"/>')
        parts.append(f'<text x="{label_w + w + 4:.1f}" y="{y + 15}">{o["score"]:.3f}</text>')
    parts.append(f'<line x1="{one:.1f}" x2="{one:.1f}" y1="0" y2="{height - 20}" '
                 f'stroke="#c33" stroke-dasharray="4 3"/>')
    parts.append(f'<text x="{one:.1f}" y="{height - 6}" text-anchor="middle">anchor = 1</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def html_page(boards, rejected):
    e = html.escape
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           "<title>cudalab leaderboard</title>",
           "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;"
           "margin-bottom:1.5em}td,th{border:1px solid #bbb;padding:2px 8px}"
           "td.n{text-align:right}svg text{font:12px sans-serif}</style>",
           "</head><body>", "<h1>Leaderboard</h1>"]
    for b in boards:
        out += [f"<h2>Lab {e(b['lab'])} on {e(b['gpu'])}</h2>",
                f"<p>Score: the geometric mean of each figure's ratio to its same-run anchor, "
                f"over the {b['score_over']} figures every ranked file has.</p>", svg_bars(b),
                "<table><tr><th>rank</th><th>student</th><th>score</th><th>date</th>"
                "<th>revision</th></tr>"]
        for o in b["overall"]:
            score = "-" if o["score"] is None else f"{o['score']:.3f}"
            out.append(f"<tr><td class=n>{o['rank']}</td><td>{e(o['student'])}</td>"
                       f"<td class=n>{score}</td><td>{e(o['date'])}</td>"
                       f"<td>{e(o['git_revision'])}</td></tr>")
        out.append("</table>")
        for f in b["figures"]:
            out += [f"<h3>{e(f['name'])} {e(f['version'])} {shape_text(f['shape'])} "
                    f"(ratio to {e(f['anchor'])})</h3>",
                    f"<table><tr><th>rank</th><th>student</th><th>ratio</th>"
                    f"<th>{e(f['unit'])}</th></tr>"]
            out += [f"<tr><td class=n>{r['rank']}</td><td>{e(r['student'])}</td>"
                    f"<td class=n>{r['ratio']:.3f}</td><td class=n>{r['value']:.1f}</td></tr>"
                    for r in f["rows"]]
            out.append("</table>")
    if rejected:
        out += ["<h2>Not ranked</h2>", "<table><tr><th>file</th><th>why</th></tr>"]
        out += [f"<tr><td>{e(r['file'])}</td><td>{e(r['reason'])}</td></tr>" for r in rejected]
        out.append("</table>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(prog="./lab leaderboard",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", type=pathlib.Path)
    parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path("results/leaderboard"))
    parser.add_argument("--gpu", help="the GPU model to rank (default: most files' model)")
    args = parser.parse_args(argv)
    boards, rejected = build(args.files, args.gpu)
    args.out.mkdir(parents=True, exist_ok=True)
    text = markdown(boards, rejected)
    (args.out / "leaderboard.md").write_text(text)
    (args.out / "leaderboard.html").write_text(html_page(boards, rejected))
    (args.out / "leaderboard.json").write_text(json.dumps(
        {"schema": "cudalab.leaderboard/1", "boards": boards, "rejected": rejected},
        indent=1) + "\n")
    print(text)
    for r in rejected:
        print(f"lab: leaderboard: not ranked: {r['file']}: {r['reason']}", file=sys.stderr)
    ranked = sum(len(b["overall"]) for b in boards)
    print(f"lab: leaderboard: {ranked} files ranked, {len(rejected)} not; written to "
          f"{args.out}/leaderboard.md, .html and .json", file=sys.stderr)
    return 0 if ranked else 1


if __name__ == "__main__":
    sys.exit(main())
