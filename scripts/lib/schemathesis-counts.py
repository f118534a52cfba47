"""Per-operation test-case counts of one schemathesis pass, read from its own NDJSON event files.

Usage: python schemathesis-counts.py --document OPENAPI.json --min N [--short-ids] EVENTS.ndjson...

The events files are what `schemathesis run --report ndjson` writes: one for the pass's run, and one
for each top-up run of scripts/schemathesis.sh. A case counts when the server answered it (the
recorder holds its interaction) and is attributed to the operation under test: by the scenario's
label in the examples, coverage and fuzzing phases (coverage also sends unspecified methods to an
operation's path; those count for it), and by the case's own method and path in the stateful phase,
whose scenarios chain several operations. "Distinct" leaves out repeats of the same request (method,
path, parameters, headers, body) across phases and runs.

Prints a table, one row per operation, then exits 0 when every operation has at least N distinct
cases, 1 otherwise. An operation without parameters or body is exempt: its whole input space is one
request (the coverage phase adds its variants: no bearer, other methods, a malformed Content-Type),
so more cases would only repeat them; its row says so. With --short-ids it prints instead the
operationIds of the operations that are short and not exempt, one a line (for a top-up run).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict

PHASES = ("examples", "coverage", "fuzzing", "stateful")


def load_operations(path: str) -> dict[str, dict]:
    """label ("GET /v1/x") -> {"id": operationId, "has_input": bool} for every operation of the document."""
    with open(path, encoding="utf-8") as f:
        document = json.load(f)
    operations = {}
    for route, item in document["paths"].items():
        for method, operation in item.items():
            if method.startswith("x-") or method == "parameters" or not isinstance(operation, dict):
                continue
            has_input = bool(operation.get("parameters") or item.get("parameters") or operation.get("requestBody"))
            operations[f"{method.upper()} {route}"] = {"id": operation["operationId"], "has_input": has_input}
    return operations


def request_key(value: dict) -> str:
    """What the server received, as far as the events tell: everything but the case's id and metadata."""
    request = {k: v for k, v in value.items() if k not in ("id", "meta")}
    phase = (value.get("meta") or {}).get("phase") or {}
    if phase.get("name") == "coverage":
        # The coverage phase's variants (no bearer, a malformed Content-Type) differ in what the
        # recorded case does not show; its scenario description does.
        request["scenario"] = (phase.get("data") or {}).get("description")
    return json.dumps(request, sort_keys=True, default=str)


def count(paths: list[str], operations: dict[str, dict]):
    cases: dict[str, dict[str, int]] = defaultdict(lambda: dict.fromkeys(PHASES, 0))
    distinct: dict[str, set[str]] = defaultdict(set)
    selected: set[str] = set()
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for line in f:
                event = json.loads(line).get("ScenarioFinished")
                if event is None:
                    continue
                phase = event["phase"]
                recorder = event.get("recorder") or {}
                label = recorder.get("label")
                if phase != "stateful" and label in operations:
                    selected.add(label)
                interactions = recorder.get("interactions") or {}
                for case_id, case in (recorder.get("cases") or {}).items():
                    interaction = interactions.get(case_id)
                    if not interaction or not interaction.get("response"):
                        continue
                    value = case["value"]
                    owner = f"{value['method'].upper()} {value['path']}" if phase == "stateful" else label
                    if owner not in operations:
                        continue
                    cases[owner][phase] += 1
                    distinct[owner].add(request_key(value))
    return selected, cases, distinct


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--document", required=True)
    parser.add_argument("--min", type=int, required=True)
    parser.add_argument("--short-ids", action="store_true")
    parser.add_argument("events", nargs="+")
    args = parser.parse_args()

    operations = load_operations(args.document)
    selected, cases, distinct = count(args.events, operations)
    short = [label for label in sorted(selected) if operations[label]["has_input"] and len(distinct[label]) < args.min]
    if args.short_ids:
        for label in short:
            print(operations[label]["id"])
        return 0

    width = max([len(label) for label in selected] + [9])
    print(f"   {'operation':<{width}}  examples  coverage  fuzzing  stateful   cases  distinct")
    for label in sorted(selected, key=lambda l: (l.split(" ", 1)[1], l)):
        c = cases[label]
        total = sum(c.values())
        if not operations[label]["has_input"]:
            mark, note = "  ", "  (no parameters or body: its whole input space; exempt)"
        else:
            mark, note = ("  " if label not in short else "✗ "), ""
        print(
            f" {mark}{label:<{width}}  {c['examples']:>8}  {c['coverage']:>8}  {c['fuzzing']:>7}  {c['stateful']:>8}"
            f"  {total:>6}  {len(distinct[label]):>8}{note}"
        )
    if short:
        print(f"fewer than {args.min} distinct cases: {', '.join(short)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
