/**
 * What failed in a run, from the JUnit reports `bun test` wrote beside its console output: each
 * failed test with the first lines of its error. scripts/test-all.sh prints it last when the run
 * fails, so that a CI log cut to its tail still says why, not only which tests.
 *
 * Usage: bun scripts/lib/failure-digest.ts REPORT.xml [...]
 */
import { existsSync, readFileSync } from 'node:fs';

const LINES = 8;

const decodeEntities = (text: string) =>
  text
    .replace(/&#(\d+);/g, (_, code) => String.fromCharCode(Number(code)))
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

const attribute = (tag: string, name: string) =>
  decodeEntities(new RegExp(`\\b${name}="([^"]*)"`).exec(tag)?.[1] ?? '');

let failed = 0;
for (const report of Bun.argv.slice(2).filter((path) => existsSync(path))) {
  const xml = readFileSync(report, 'utf8');
  for (const [, tag, body] of xml.matchAll(/(<testcase\b[^>]*[^/]>)([\s\S]*?)<\/testcase>/g)) {
    const failure = /<failure\b[^>]*>([\s\S]*?)<\/failure>/.exec(body!);
    if (!failure) continue;
    failed++;
    const where = [attribute(tag!, 'file'), attribute(tag!, 'classname'), attribute(tag!, 'name')].filter(Boolean);
    console.log(`\n(fail) ${where.join(' > ')}`);
    for (const line of decodeEntities(failure[1]!).trim().split('\n').slice(0, LINES)) console.log(`    ${line}`);
  }
}
console.log(failed ? `\n${failed} failed tests, with their errors above` : 'no failed test in the JUnit reports');
