/**
 * Reads the results of a conformance run (`conformance server -o DIR`) and judges them against a
 * baseline (baseline.json, baseline-2026-07-28.json): every required scenario must have run and
 * passed; a failing scenario must be listed as an expected failure; an expected failure that now
 * passes must be taken off the list. An expected failure may name the checks that fail (the
 * scenario's other checks pass, and must keep passing) or stand for the whole scenario.
 *
 * Usage: bun test/conformance/compare.ts RESULTS_DIR BASELINE_JSON   (exit 1 when any rule breaks)
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Why a scenario fails, and (when only some of its checks do) which checks. */
type ExpectedFailure = string | { why: string; checks: string[] };

interface Baseline {
  required: string[];
  expected_failures: Record<string, ExpectedFailure>;
  /** Printed beside a scenario's result: what a pass or a skip really shows. */
  notes?: Record<string, string>;
}

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

interface Outcome {
  scenario: string;
  passed: number;
  failed: Check[];
  /** Checks that neither passed nor failed (INFO, WARNING, SKIPPED). */
  other: Check[];
}

const [resultsDir, baselinePath] = Bun.argv.slice(2);
if (!resultsDir || !baselinePath) {
  process.stderr.write('usage: bun test/conformance/compare.ts RESULTS_DIR BASELINE_JSON\n');
  process.exit(2);
}

const baseline = JSON.parse(readFileSync(baselinePath, 'utf8')) as Baseline;
const outcomes = new Map<string, Outcome>();
for (const entry of readdirSync(resultsDir).sort()) {
  // One directory per scenario: server-<scenario>-<ISO timestamp with dashes>.
  const match = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry);
  const file = join(resultsDir, entry, 'checks.json');
  if (!match || !statSync(join(resultsDir, entry)).isDirectory()) continue;
  const checks = JSON.parse(readFileSync(file, 'utf8')) as Check[];
  const scenario = match[1]!;
  outcomes.set(scenario, {
    scenario,
    passed: checks.filter((c) => c.status === 'SUCCESS').length,
    failed: checks.filter((c) => c.status === 'FAILURE'),
    other: checks.filter((c) => c.status !== 'SUCCESS' && c.status !== 'FAILURE'),
  });
}

const problems: string[] = [];
const lines: string[] = [];
for (const outcome of outcomes.values()) {
  const { scenario, passed, failed, other } = outcome;
  const required = baseline.required.includes(scenario);
  const expected = scenario in baseline.expected_failures;
  const note = baseline.notes?.[scenario] ? ` — ${baseline.notes[scenario]}` : '';
  if (failed.length === 0) {
    const more = other.length ? `, also ${other.map((c) => `${c.id} ${c.status}`).join(', ')}` : '';
    lines.push(`  pass  ${scenario} (${passed} checks passed${more})${required ? ' [required]' : ''}${note}`);
    if (expected)
      problems.push(`${scenario} passes now but is listed as an expected failure: take it off ${baselinePath}`);
    continue;
  }
  const why = failed.map((c) => `${c.id}: ${c.errorMessage ?? 'failed'}`).join('; ');
  const expectation = baseline.expected_failures[scenario];
  const unexpected = typeof expectation === 'object' ? failed.filter((c) => !expectation.checks.includes(c.id)) : [];
  if (required) {
    lines.push(`  FAIL  ${scenario} [required] ${why}`);
    problems.push(`required scenario ${scenario} failed: ${why}`);
  } else if (expected && unexpected.length === 0) {
    const reason =
      typeof expectation === 'object' ? `${failed.map((c) => c.id).join(', ')}: ${expectation.why}` : expectation;
    lines.push(`  xfail ${scenario} (${reason})`);
    const passing =
      typeof expectation === 'object' ? expectation.checks.filter((id) => !failed.some((c) => c.id === id)) : [];
    if (passing.length)
      problems.push(
        `${scenario}: ${passing.join(', ')} pass now but are listed as failing: take them off ${baselinePath}`,
      );
  } else if (expected) {
    const more = unexpected.map((c) => `${c.id}: ${c.errorMessage ?? 'failed'}`).join('; ');
    lines.push(`  FAIL  ${scenario} [checks beyond the baseline's] ${more}`);
    problems.push(`${scenario} failed checks its baseline entry does not list: ${more}`);
  } else {
    lines.push(`  FAIL  ${scenario} [not in the baseline] ${why}`);
    problems.push(`${scenario} failed and is not an expected failure: ${why}`);
  }
}
for (const scenario of baseline.required) {
  if (!outcomes.has(scenario)) problems.push(`required scenario ${scenario} did not run`);
}
for (const scenario of baseline.required.filter((s) => s in baseline.expected_failures)) {
  problems.push(`${scenario} is both required and an expected failure in ${baselinePath}`);
}

const failedCount = [...outcomes.values()].filter((o) => o.failed.length > 0).length;
process.stdout.write(
  `Conformance: ${outcomes.size} scenarios, ${outcomes.size - failedCount} passed, ${failedCount} failed\n${lines.join('\n')}\n`,
);
if (outcomes.size === 0) problems.push(`no results in ${resultsDir}`);
if (problems.length) {
  process.stdout.write(`\nConformance check FAILED:\n${problems.map((p) => `  - ${p}`).join('\n')}\n`);
  process.exit(1);
}
process.stdout.write(
  '\nConformance check passed: every required scenario passed and every failure is in the baseline.\n',
);
