/** @jsxImportSource hono/jsx */
/**
 * The Import page: choose what the file is, upload it, and follow its import (a progress bar,
 * then the summary). The form posts without the script; with it, the upload shows its own
 * progress, and the run's page updates its bar in place instead of reloading every two seconds.
 */
import { IMPORT_FORMAT_LABELS } from '../importers/format-labels';
import { describeImport } from '../operations/import-export/import-summary';
import type { ImportRun } from './import-runs';
import { Layout, Messages } from './layout';
import { IMPORT_PATH } from './paths';

/** Where each product's export comes from, in a line (docs/importing.md has the rest). */
const HOW_TO_GET: Record<keyof typeof IMPORT_FORMAT_LABELS, [string, string]> = {
  engram: ['An Engram export', 'written by the command engram export on the server it comes from.'],
  chatgpt: ['ChatGPT', 'Settings → Data controls → Export data; upload the .zip from the email as it is.'],
  claude: ['Claude', 'Settings → Privacy → Export data; upload the .zip from the email as it is.'],
  'mcp-memory': ['The MCP memory server', 'its memory.jsonl, beside the server or where MEMORY_FILE_PATH says.'],
  markdown: ['Markdown notes', 'zip the folder (an Obsidian vault, a basic-memory project) and upload the zip.'],
};

export interface ImportPageProps {
  csrf: string;
  email: string;
  error?: string | null;
  maxUploadBytes: number;
}

export function ImportPage({ csrf, email, error, maxUploadBytes }: ImportPageProps) {
  return (
    <Layout title="Import" signedInAs={email} csrf={csrf} current={IMPORT_PATH}>
      <section class="card" aria-labelledby="import-title">
        <h1 id="import-title">Import memory</h1>
        <Messages error={error} />
        <p class="muted">
          Bring conversations, notes and facts from elsewhere. The file is checked whole first: a broken one is refused,
          saying where, and nothing of it is stored. Importing the same file again adds nothing; a conversation or note
          changed since replaces the one imported before.
        </p>
        {/* The token comes before the file: the upload is written to disk only for a post that carries it. */}
        <form method="post" action={IMPORT_PATH} enctype="multipart/form-data" data-import-upload>
          <input type="hidden" name="csrf" value={csrf} />
          <label class="field">
            <span>What it is</span>
            <select name="format">
              {Object.entries(IMPORT_FORMAT_LABELS).map(([name, label]) => (
                <option value={name} selected={name === 'chatgpt'}>
                  {label}
                </option>
              ))}
            </select>
          </label>
          <ul class="muted how-to">
            {Object.values(HOW_TO_GET).map(([what, how]) => (
              <li>
                <strong>{what}</strong>: {how}
              </li>
            ))}
          </ul>
          <label class="field">
            <span>Into the container (optional)</span>
            <input
              type="text"
              name="container"
              maxlength={200}
              placeholder="ChatGPT, Claude, one per project or folder"
            />
          </label>
          <label class="tick">
            <input type="checkbox" name="dry_run" value="true" /> Only check it, and show what would be imported
          </label>
          <label class="tick">
            <input type="checkbox" name="skip_invalid" value="true" />
            <span>
              Skip entries that cannot be imported
              <small>
                Imports the rest when a conversation, note or line of the file is not one its product writes, and lists
                each one left out. Without it, such an entry refuses the whole file.
              </small>
            </span>
          </label>
          <label class="field">
            <span>File (up to {Math.floor(maxUploadBytes / 1024 ** 3)} GiB)</span>
            <input type="file" name="file" required accept=".zip,.json,.jsonl" />
          </label>
          <div class="actions">
            <button type="submit" class="primary">
              Import
            </button>
          </div>
          <p class="upload" hidden>
            <label>
              Uploading <progress id="upload-progress" max="100" value="0"></progress>{' '}
              <span id="upload-percent">0%</span>
            </label>
          </p>
        </form>
      </section>
    </Layout>
  );
}

const PHASES = { checking: 'Checking', importing: 'Importing' } as const;
const ACTIONS = { add: 'Add', replace: 'Replace', move: 'Move' } as const;
/** The entries left out that the page lists; the rest are counted. */
const LISTED = 200;

/** "Checking: 45% (12.3 MB of 27.0 MB)", and the bar's value. */
export function progressOf(run: ImportRun): { percent: number; text: string } {
  const p = run.progress;
  if (!p) return { percent: 0, text: 'Starting…' };
  const percent = p.total > 0 ? Math.min(100, Math.floor((100 * p.done) / p.total)) : 100;
  return {
    percent,
    text: `${PHASES[p.phase]}: ${percent}% (${(p.done / 1e6).toFixed(1)} MB of ${(p.total / 1e6).toFixed(1)} MB)`,
  };
}

export interface ImportRunPageProps {
  run: ImportRun;
  csrf: string;
  email: string;
}

export function ImportRunPage({ run, csrf, email }: ImportRunPageProps) {
  const { percent, text } = progressOf(run);
  const heading =
    run.state === 'running'
      ? `Importing ${run.label}`
      : run.state === 'failed'
        ? `${run.label} was not imported`
        : run.dryRun
          ? `Checked ${run.label}`
          : `Imported ${run.label}`;
  return (
    <Layout
      title="Import"
      signedInAs={email}
      csrf={csrf}
      current={IMPORT_PATH}
      refreshSeconds={run.state === 'running' ? 2 : undefined}
    >
      <section class="card" aria-labelledby="run-title" data-import-run={run.state === 'running' ? run.id : undefined}>
        <h1 id="run-title">{heading}</h1>
        {run.state === 'running' ? (
          <p>
            <label>
              <progress id="import-progress" max="100" value={String(percent)}>
                {percent}%
              </progress>{' '}
              <span id="import-phase">{text}</span>
            </label>
          </p>
        ) : null}
        {run.state === 'failed' ? (
          <p class="error" role="alert">
            {run.error}
          </p>
        ) : null}
        {run.summary ? (
          <div id="import-summary" role="status">
            {describeImport(run.summary).map((line) => (
              <p>{line}</p>
            ))}
            {run.summary.leftOut.length ? (
              <ul id="import-left-out">
                {run.summary.leftOut.slice(0, LISTED).map((entry) => (
                  <li>
                    <code>{entry}</code>
                  </li>
                ))}
                {run.summary.leftOut.length > LISTED ? (
                  <li class="muted">
                    …and {run.summary.leftOut.length - LISTED} more (the engram import command lists them all).
                  </li>
                ) : null}
              </ul>
            ) : null}
            {run.summary.dryRun ? (
              <p class="muted">Nothing was stored. Upload the file again without “Only check it” to import it.</p>
            ) : null}
            {run.summary.containers.some((c) => c.id) ? (
              <ul id="import-containers">
                {run.summary.containers
                  .filter((c) => c.id)
                  .map((c) => (
                    <li>
                      <a href={`/containers/${c.id}`}>{c.name}</a>
                    </li>
                  ))}
              </ul>
            ) : null}
          </div>
        ) : null}
        {run.summary?.dryRun && run.changes.length ? (
          <>
            <h2>What it would add, replace or move</h2>
            <ul id="import-changes">
              {run.changes.map((c) => (
                <li>
                  {ACTIONS[c.action]} {c.kind} “{c.name.slice(0, 120)}”{c.container ? ` in ${c.container}` : ''}
                </li>
              ))}
            </ul>
            {run.changeCount > run.changes.length ? (
              <p class="muted">…and {run.changeCount - run.changes.length} more.</p>
            ) : null}
          </>
        ) : null}
        {run.state !== 'running' ? (
          <p>
            <a href={IMPORT_PATH}>Import another file</a>
          </p>
        ) : null}
      </section>
    </Layout>
  );
}
