/**
 * The secret sweep: searches every file of a test's stores and logs, byte for byte, for anything
 * shaped like a credential this server issues, so a leak caused by any test is caught where it
 * happens. Every harness calls it just before it deletes its data directory and logs (or at stop,
 * when it keeps them); with ENGRAM_HYGIENE_LEDGER set, each sweep appends one JSON line there, and
 * `--report` reads the ledger at the end of scripts/test-all.sh.
 *
 *   bun test/helpers/secret-sweep.ts [--harness NAME] [--store PATH]... [--log PATH]... [--exclude NAME]... [PATH...]
 *   bun test/helpers/secret-sweep.ts --report [--ledger FILE] [--expect HARNESS=MIN_SWEEPS]...
 *
 * A bare PATH is a store when it is a directory and a log when it is a file. The first form exits
 * 1 when anything is found, the second when the ledger holds a finding or a harness swept fewer
 * times than expected. Findings name the file, the byte offset and a hint; never a whole secret.
 */
import { constants, Database } from 'bun:sqlite';
import {
  appendFileSync,
  closeSync,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
} from 'node:fs';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';

/**
 * What is searched for. Every secret the server issues is `<prefix>_<id>_<secret>` in base62:
 * developer keys `egm_`, consent tokens `egc_`, owner sessions `egs_`, authorization codes `ega_`,
 * share tokens `egx_`, with a 43-character secret (src/auth/credentials.ts). Two shapes:
 *
 * - credential: a prefix, an id and a secret, without boundaries (in an SQLite record a column's
 *   bytes run straight into the next column's), the secret of 8 to 43 characters so that a
 *   truncated or extended presented bearer is caught too. A hint (`egm_k7Qa…9fZx`) does not match.
 * - bare secret: exactly 43 base62 characters bounded by anything else, a secret written without
 *   its prefix (a credential's own secret part is reported once, as the credential). SHA-256 hex
 *   (64), ids (16 or fewer), trace ids (20), the CSRF key (64), sign-in cookies (32) and embedding
 *   blobs (binary) do not match; the legitimate exceptions are excluded by `legitimate()` below.
 */
const CREDENTIAL = /eg[mcsax]_[A-Za-z0-9]{4,32}_[A-Za-z0-9]{8,43}/g;
const BARE_SECRET = /(?<![A-Za-z0-9])[A-Za-z0-9]{43}(?![A-Za-z0-9])/g;

/**
 * Legitimate bare 43s, each excluded by its exact surroundings so that nothing else is let through:
 *
 * - the salt and the hash of an argon2id password hash in PHC form,
 *   `$argon2id$v=19$m=65536,t=2,p=1$<salt>$<hash>` (`accounts.password_hash`): Bun makes both 32
 *   bytes, 43 characters of base64, and each has neither `+` nor `/` about a quarter of the time;
 * - in a store file only, a PKCE S256 code challenge (public: a hash of the app's verifier), 43
 *   characters of base64url in `oauth_codes.code_challenge`. SQLite writes a record's columns
 *   back to back, so the challenge sits between the redirect URI and the `resource` URL, e.g.
 *   `…/callback` `QvDS…OF2-wdFfbEM` `http://…`: the redirect URI's last word joined to the
 *   challenge's first part, or its last part joined to `http`, can make a run of exactly 43. Excluded
 *   when the run overlaps 43 base64url characters that are directly followed by `http://` or `https://`.
 */
const PHC_PARAMS = String.raw`\$argon2(?:id|i|d)\$v=\d+\$m=\d+,t=\d+,p=\d+\$`;
const PHC_SALT_BEFORE = new RegExp(`${PHC_PARAMS}$`);
const PHC_HASH_BEFORE = new RegExp(`${PHC_PARAMS}[A-Za-z0-9+/]{11,64}\\$$`);
const BASE64URL_43 = /^[A-Za-z0-9_-]{43}$/;

function legitimate(text: string, start: number, match: string, store: boolean): boolean {
  const before = text.slice(Math.max(0, start - 112), start);
  if ((PHC_SALT_BEFORE.test(before) && text[start + match.length] === '$') || PHC_HASH_BEFORE.test(before)) return true;
  if (!store) return false;
  // The challenge [end - 43, end) must overlap the run [start, start + 43): end < start + 86.
  for (let end = start + 1; end < start + 86 && end <= text.length; end++) {
    if (
      (text.startsWith('http://', end) || text.startsWith('https://', end)) &&
      end >= 43 &&
      BASE64URL_43.test(text.slice(end - 43, end))
    )
      return true;
    if (!/[A-Za-z0-9_-]/.test(text[end] ?? '')) break;
  }
  return false;
}

export interface Finding {
  file: string;
  offset: number;
  shape: 'credential' | 'bare secret';
  /** First 8 and last 4 characters (4 and 4 of a bare secret): never the whole string. */
  hint: string;
}

export interface SweepInput {
  /** Which harness swept: written in the ledger, and in the error. */
  harness: string;
  /** Data directories (searched recursively) or store files such as a backup. */
  stores?: string[];
  logs?: string[];
  /** Captured output that never reached a file (a child's piped stderr), searched as logs. */
  texts?: { name: string; text: string }[];
  /** Names (of files or folders, matched on the base name) that are not the server's: what a harness wrote on purpose. */
  exclude?: string[];
}

export interface SweepResult {
  harness: string;
  stores: number;
  /** SQLite files with the Engram schema found among the stores (a backup copy counts as one). */
  databases: number;
  logs: number;
  files: number;
  bytes: number;
  /** Rows of the hashed-secret tables: credentials, sessions, oauth_codes, shares. */
  credentials: number;
  findings: Finding[];
  ms: number;
}

const CHUNK = 8 << 20;
const CONTEXT = 128;
const isAlnum = (b: number) => (b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122);

/**
 * Every match of the shapes in `text` (latin1, so any byte is one character), reported at `base`
 * + index when it starts within [from, to) of the absolute offsets.
 */
export function scanText(text: string, base = 0, file = '', store = false, from = 0, to = Infinity): Finding[] {
  const out: Finding[] = [];
  // Two searches rather than one alternation: each alone is about five times faster.
  const credentials: [number, number][] = [];
  for (const m of text.matchAll(CREDENTIAL)) {
    credentials.push([m.index, m.index + m[0].length]);
    const at = base + m.index;
    if (at >= from && at < to)
      out.push({ file, offset: at, shape: 'credential', hint: `${m[0].slice(0, 8)}…${m[0].slice(-4)}` });
  }
  let c = 0;
  for (const m of text.matchAll(BARE_SECRET)) {
    while (c < credentials.length && credentials[c]![1] <= m.index) c++;
    if (c < credentials.length && credentials[c]![0] <= m.index) continue; // the secret part of a credential found above
    const at = base + m.index;
    if (at < from || at >= to || legitimate(text, m.index, m[0], store)) continue;
    out.push({ file, offset: at, shape: 'bare secret', hint: `${m[0].slice(0, 4)}…${m[0].slice(-4)}` });
  }
  return out.sort((x, y) => x.offset - y.offset);
}

/**
 * Searches one file in chunks of about 8 MiB. Each chunk is cut at a byte that is not base62 (so no
 * run is split) and scanned with CONTEXT bytes on either side (a prefix and id before a secret, the
 * PHC fields before a password hash, the URL after a PKCE challenge); a match is reported by the
 * chunk its first byte falls in, so none is reported twice.
 */
export function scanFile(path: string, store = false, chunk = CHUNK): { bytes: number; findings: Finding[] } {
  const size = statSync(path).size;
  const fd = openSync(path, 'r');
  const findings: Finding[] = [];
  try {
    let pending = Buffer.alloc(0);
    let base = 0; // the offset of pending[0] in the file
    let from = 0; // matches starting before this were reported by the previous chunk
    let pos = 0;
    for (;;) {
      const block = Buffer.allocUnsafe(Math.min(chunk, size - pos));
      const got = block.length ? readSync(fd, block, 0, block.length, pos) : 0;
      pos += got;
      const data = pending.length ? Buffer.concat([pending, block.subarray(0, got)]) : block.subarray(0, got);
      const eof = pos >= size || got === 0;
      let cut = data.length;
      if (!eof) {
        cut = data.length - CONTEXT - 1;
        while (cut > from - base + CONTEXT && isAlnum(data[cut]!)) cut--;
        if (cut <= from - base + CONTEXT) {
          pending = data; // one run longer than a chunk: read on until it ends
          continue;
        }
      }
      // The window runs CONTEXT bytes past the cut, and on to the end of a run there.
      let end = Math.min(cut + CONTEXT, data.length);
      while (end < data.length && isAlnum(data[end]!)) end++;
      if (!eof && end === data.length) {
        pending = data; // the window needs bytes not read yet
        continue;
      }
      const text = data.toString('latin1', 0, end);
      findings.push(...scanText(text, base, path, store, from, eof ? Infinity : base + cut));
      if (eof) break;
      from = base + cut;
      const keep = cut - CONTEXT;
      pending = Buffer.from(data.subarray(keep));
      base += keep;
    }
  } finally {
    closeSync(fd);
  }
  return { bytes: size, findings };
}

function filesUnder(path: string, exclude: Set<string>): string[] {
  if (!existsSync(path) || exclude.has(basename(path))) return [];
  const st = statSync(path);
  if (!st.isDirectory()) return st.isFile() ? [path] : [];
  return readdirSync(path)
    .sort()
    .flatMap((name) => filesUnder(join(path, name), exclude));
}

const SQLITE_HEADER = 'SQLite format 3\0';
const SECRET_TABLES = ['credentials', 'sessions', 'oauth_codes', 'exposures'];

/** The hashed-secret rows of an Engram store file, or null when it is not one (or unreadable). */
export function countCredentials(file: string): number | null {
  const head = Buffer.alloc(16);
  const fd = openSync(file, 'r');
  try {
    if (readSync(fd, head, 0, 16, 0) < 16 || head.toString('latin1') !== SQLITE_HEADER) return null;
  } finally {
    closeSync(fd);
  }
  let db: Database | null = null;
  try {
    // Read-only still makes -wal and -shm files beside the store, which would stay beside a kept
    // one. Without a WAL to read (a store closed cleanly) it is opened immutable: nothing is written.
    const wal = `${file}-wal`;
    db =
      existsSync(wal) && statSync(wal).size > 0
        ? new Database(file, { readonly: true })
        : new Database(
            `file:${file.replace(/[%?#]/g, encodeURIComponent)}?immutable=1`,
            constants.SQLITE_OPEN_READONLY | constants.SQLITE_OPEN_URI,
          );
    const tables = new Set(
      db
        .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table'")
        .all()
        .map((r) => r.name),
    );
    if (!tables.has('accounts')) return null;
    let n = 0;
    for (const t of SECRET_TABLES)
      if (tables.has(t)) n += db.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${t}`).get()!.n;
    return n;
  } catch {
    return null;
  } finally {
    db?.close();
  }
}

/** Searches the stores and logs; appends a line to ENGRAM_HYGIENE_LEDGER when set. Never throws on a finding. */
export function sweep(input: SweepInput, ledger = process.env.ENGRAM_HYGIENE_LEDGER): SweepResult {
  const t0 = performance.now();
  const exclude = new Set(input.exclude ?? []);
  const result: SweepResult = {
    harness: input.harness,
    stores: 0,
    databases: 0,
    logs: 0,
    files: 0,
    bytes: 0,
    credentials: 0,
    findings: [],
    ms: 0,
  };
  const storeFiles: string[] = [];
  for (const store of input.stores ?? []) {
    const files = filesUnder(store, exclude);
    if (existsSync(store)) result.stores++;
    storeFiles.push(...files);
  }
  const logFiles = (input.logs ?? []).flatMap((l) => filesUnder(l, exclude));
  result.logs = logFiles.length + (input.texts?.length ?? 0);
  for (const [file, store] of [
    ...storeFiles.map((f) => [f, true] as const),
    ...logFiles.map((f) => [f, false] as const),
  ]) {
    let scanned: ReturnType<typeof scanFile>;
    try {
      scanned = scanFile(file, store);
    } catch (err) {
      // SQLite removes a store's side files when its last connection closes, which a connection this
      // process left to the collector can do at any moment: one gone since the listing held nothing.
      if ((err as { code?: string }).code === 'ENOENT' && /-(wal|shm|journal)$/.test(file)) continue;
      throw err;
    }
    const { bytes, findings } = scanned;
    result.files++;
    result.bytes += bytes;
    result.findings.push(...findings);
  }
  for (const { name, text } of input.texts ?? []) {
    const latin1 = Buffer.from(text, 'utf8').toString('latin1');
    result.files++;
    result.bytes += latin1.length;
    result.findings.push(...scanText(latin1, 0, name));
  }
  // Counted after the search: opening a store, even read-only, may create its -shm file.
  for (const file of storeFiles) {
    if (/-(wal|shm|journal)$/.test(file)) continue;
    const n = countCredentials(file);
    if (n === null) continue;
    result.databases++;
    result.credentials += n;
  }
  result.ms = Math.round(performance.now() - t0);
  if (ledger)
    appendFileSync(
      ledger,
      `${JSON.stringify({ ...result, findings: result.findings.slice(0, 20), findingCount: result.findings.length, pid: process.pid, at: new Date().toISOString() })}\n`,
    );
  return result;
}

export class SecretLeakError extends Error {
  constructor(readonly result: SweepResult) {
    super(summary(result));
    this.name = 'SecretLeakError';
  }
}

/** One line on the sweep, and one per finding (at most 20). */
export function summary(r: SweepResult): string {
  const head = `secret sweep (${r.harness}): ${r.stores} stores (${r.databases} databases, ${r.credentials} credentials), ${r.logs} logs, ${r.files} files, ${r.bytes} bytes, ${r.ms} ms`;
  if (!r.findings.length) return `${head}: clean`;
  const lines = r.findings.slice(0, 20).map((f) => `  ${f.shape} ${f.hint} in ${f.file} at byte ${f.offset}`);
  return `${head}: ${r.findings.length} FINDINGS (a credential-shaped string was written to disk)\n${lines.join('\n')}${r.findings.length > 20 ? `\n  … and ${r.findings.length - 20} more` : ''}`;
}

/**
 * Sweeps, then removes `remove` (what the harness made: its temporary directories and logs) when
 * nothing was found; on a finding throws SecretLeakError and leaves everything for inspection, so
 * the harness, and the test that caused the leak, fails loudly.
 */
export function sweepThenRemove(input: SweepInput, ...remove: string[]): SweepResult {
  const result = sweep(input);
  if (result.findings.length) {
    const err = new SecretLeakError(result);
    err.message += `\n  (kept for inspection: ${remove.join(', ')})`;
    throw err;
  }
  for (const p of remove) rmSync(p, { recursive: true, force: true });
  return result;
}

interface LedgerLine extends Omit<SweepResult, 'findings'> {
  findings: Finding[];
  findingCount: number;
}

/** Totals of a ledger, per harness and overall; `problems` lists why the run must fail. */
export function report(ledger: string, expect: Record<string, number> = {}): { text: string; problems: string[] } {
  const problems: string[] = [];
  const lines: LedgerLine[] = existsSync(ledger)
    ? readFileSync(ledger, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];
  if (!lines.length) problems.push(`the ledger ${ledger} is missing or empty: no sweep ran`);
  const zero = () => ({
    sweeps: 0,
    stores: 0,
    databases: 0,
    logs: 0,
    files: 0,
    bytes: 0,
    credentials: 0,
    findings: 0,
    ms: 0,
  });
  const by = new Map<string, ReturnType<typeof zero>>();
  const total = zero();
  for (const l of lines) {
    const h = by.get(l.harness) ?? zero();
    by.set(l.harness, h);
    for (const t of [h, total]) {
      t.sweeps++;
      t.stores += l.stores;
      t.databases += l.databases;
      t.logs += l.logs;
      t.files += l.files;
      t.bytes += l.bytes;
      t.credentials += l.credentials;
      t.findings += l.findingCount;
      t.ms += l.ms;
    }
    for (const f of l.findings) problems.push(`${l.harness}: ${f.shape} ${f.hint} in ${f.file} at byte ${f.offset}`);
    if (l.findingCount > l.findings.length)
      problems.push(`${l.harness}: … and ${l.findingCount - l.findings.length} more in that sweep`);
  }
  for (const [harness, min] of Object.entries(expect)) {
    const n = by.get(harness)?.sweeps ?? 0;
    if (n < min) problems.push(`${harness}: ${n} sweeps, expected at least ${min} (is its hook broken?)`);
  }
  const mb = (b: number) => (b / 1024 / 1024).toFixed(1);
  const row = (name: string, t: ReturnType<typeof zero>) =>
    `${name.padEnd(44)} ${String(t.sweeps).padStart(6)} ${String(t.stores).padStart(6)} ${String(t.databases).padStart(5)} ${String(t.logs).padStart(5)} ${String(t.files).padStart(6)} ${mb(t.bytes).padStart(9)} ${String(t.credentials).padStart(7)} ${String(t.findings).padStart(8)} ${(t.ms / 1000).toFixed(1).padStart(7)}`;
  const text = [
    `${'harness'.padEnd(44)} ${'sweeps'.padStart(6)} ${'stores'.padStart(6)} ${'dbs'.padStart(5)} ${'logs'.padStart(5)} ${'files'.padStart(6)} ${'MiB'.padStart(9)} ${'creds'.padStart(7)} ${'findings'.padStart(8)} ${'sweep s'.padStart(7)}`,
    ...[...by].sort(([a], [b]) => a.localeCompare(b)).map(([name, t]) => row(name, t)),
    row('total', total),
    `secret hygiene: ${total.stores} stores (${total.databases} databases) and ${total.logs} logs searched, ${total.bytes} bytes, ${total.credentials} credentials issued into them, ${total.findings} findings`,
  ].join('\n');
  return { text, problems };
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      harness: { type: 'string', default: 'cli' },
      store: { type: 'string', multiple: true, default: [] },
      log: { type: 'string', multiple: true, default: [] },
      exclude: { type: 'string', multiple: true, default: [] },
      report: { type: 'boolean', default: false },
      ledger: { type: 'string' },
      expect: { type: 'string', multiple: true, default: [] },
      quiet: { type: 'boolean', default: false },
    },
  });
  if (values.report) {
    const ledger = values.ledger ?? process.env.ENGRAM_HYGIENE_LEDGER;
    if (!ledger) {
      console.error('secret-sweep --report: give --ledger FILE or set ENGRAM_HYGIENE_LEDGER');
      process.exit(2);
    }
    const expect = Object.fromEntries(
      values.expect!.map((e) => {
        const at = e.lastIndexOf('=');
        return [e.slice(0, at), Number(e.slice(at + 1))];
      }),
    );
    const { text, problems } = report(ledger, expect);
    console.log(text);
    for (const p of problems) console.error(`FAIL ${p}`);
    process.exit(problems.length ? 1 : 0);
  }
  const stores = [...values.store!];
  const logs = [...values.log!];
  for (const p of positionals) (existsSync(p) && statSync(p).isDirectory() ? stores : logs).push(p);
  const result = sweep({ harness: values.harness!, stores, logs, exclude: values.exclude });
  if (result.findings.length || !values.quiet) console.error(summary(result));
  process.exit(result.findings.length ? 1 : 0);
}
