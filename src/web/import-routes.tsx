/** @jsxImportSource hono/jsx */
/**
 * The Import page's routes: the form, the upload (streamed into the data directory with busboy,
 * never held in memory, so a 500 MB archive costs what its import costs), and each run's page and
 * progress. The import itself is the import operation, run by ImportRuns.
 */
import { createWriteStream, rmSync } from 'node:fs';
import { basename } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import type { Context } from 'hono';
import { Hono } from 'hono';
import { refusalOf } from '../errors';
import type { AppEnv } from '../http/app-env';
import { ImportOptions } from '../operations/import-export/import-memory';
import { parseInput } from '../operations/operation';
import { withoutInvisible } from '../names';
import { ImportPage, ImportRunPage, progressOf } from './import-page';
import { FORM_REFUSED, fixable, type OwnerKit } from './owner-kit';
import { IMPORT_PATH, signInUrl } from './paths';
import { ownerSession } from '../http/session-cookie';

/** The largest upload: an export with years of photos in it. Larger files go in with `engram import`. */
const MAX_UPLOAD_BYTES = 4 * 1024 ** 3;

interface Upload {
  fields: Record<string, string>;
  /** The file's name as the browser gave it, or null when no file came (or it came without the form's token). */
  name: string | null;
  tooLarge: boolean;
}

/**
 * Streams the form's file into `path` and reads its fields. The file is written only when the
 * session's token came before it (the form puts it first), so a forged post writes nothing.
 */
async function receive(c: Context<AppEnv>, path: string, tokenValid: (token: string) => boolean): Promise<Upload> {
  const upload: Upload = { fields: {}, name: null, tooLarge: false };
  const body = c.req.raw.body;
  const type = c.req.header('content-type') ?? '';
  if (!body || !type.startsWith('multipart/form-data')) return upload;
  let written: Promise<void> = Promise.resolve();
  await new Promise<void>((resolve, reject) => {
    const form = busboy({
      headers: { 'content-type': type },
      limits: { files: 1, fields: 10, fieldSize: 4096, fileSize: MAX_UPLOAD_BYTES },
    });
    form.on('field', (name, value) => {
      upload.fields[name] = value;
    });
    form.on('file', (name, stream, info) => {
      if (name !== 'file' || !info.filename || !tokenValid(upload.fields.csrf ?? '')) {
        stream.resume();
        return;
      }
      upload.name = info.filename;
      stream.on('limit', () => {
        upload.tooLarge = true;
      });
      written = pipeline(stream, createWriteStream(path, { mode: 0o600 }));
    });
    form.on('close', resolve);
    form.on('error', reject);
    Readable.fromWeb(body as never)
      .on('error', reject)
      .pipe(form);
  });
  await written;
  return upload;
}

export function importRoutes({ html, page, flash, services, imports, ownerOf, refusedForm }: OwnerKit): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get(
    IMPORT_PATH,
    page((c, o, f) =>
      html(c, <ImportPage csrf={o.csrf} email={o.email} error={f.error} maxUploadBytes={MAX_UPLOAD_BYTES} />),
    ),
  );

  app.post(IMPORT_PATH, async (c) => {
    const session = await ownerSession(c, services);
    if (!session) return c.redirect(signInUrl(IMPORT_PATH), 303);
    const back = (message: string) => {
      flash(c, 'error', message);
      return c.redirect(IMPORT_PATH, 303);
    };
    const path = imports.uploadPath();
    let started = false;
    try {
      let upload: Upload;
      try {
        upload = await receive(c, path, (token) => !refusedForm(c, session, token));
      } catch (err) {
        // A browser that went away mid-upload, a body that is no form, a disk that filled.
        return back(
          refusalOf(err)?.message ??
            'The upload was cut off or could not be read. Nothing was imported; please try again.',
        );
      }
      if (refusedForm(c, session, upload.fields.csrf ?? '')) return back(FORM_REFUSED);
      if (upload.tooLarge)
        return back(
          `The file is larger than ${MAX_UPLOAD_BYTES / 1024 ** 3} GiB: import it with the engram import command instead.`,
        );
      if (!upload.name) return back('Choose a file to import.');
      const options = parseInput(ImportOptions, {
        format: upload.fields.format,
        container: upload.fields.container?.trim() || null,
        dry_run: upload.fields.dry_run === 'true',
        skip_invalid: upload.fields.skip_invalid === 'true',
      });
      // What the run's page and messages call it: the file's own name, without a folder or invisible characters.
      const label = withoutInvisible(basename(upload.name.replaceAll('\\', '/'))) || 'upload';
      const run = imports.start((await ownerOf(c, session)).ctx, path, label, {
        format: options.format,
        container: options.container ?? null,
        dryRun: options.dry_run ?? false,
        skipInvalid: options.skip_invalid ?? false,
      });
      started = true;
      return c.redirect(`${IMPORT_PATH}/runs/${run.id}`, 303);
    } catch (err) {
      if (fixable(err)) return back(err.message);
      throw err;
    } finally {
      if (!started) rmSync(path, { force: true });
    }
  });

  app.get(
    `${IMPORT_PATH}/runs/:id`,
    page((c, o) => {
      const run = imports.get(o.session.accountId, c.req.param('id') ?? '');
      if (!run) {
        flash(
          c,
          'error',
          'That import is not known here (finished imports are kept an hour, and none across a restart).',
        );
        return c.redirect(IMPORT_PATH, 303);
      }
      return html(c, <ImportRunPage run={run} csrf={o.csrf} email={o.email} />);
    }),
  );

  /** What the run's page reads to move its bar (the script; without it, the page reloads itself). */
  app.get(`${IMPORT_PATH}/runs/:id/progress`, async (c) => {
    const session = await ownerSession(c, services);
    const run = session && imports.get(session.accountId, c.req.param('id'));
    c.header('Cache-Control', 'no-store');
    if (!run) return c.json({ state: 'unknown' }, 404);
    return c.json({ state: run.state, ...progressOf(run) });
  });

  return app;
}
