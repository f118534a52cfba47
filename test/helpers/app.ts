/**
 * Every door of the app (REST, MCP, OAuth, the owner's pages) over an operation harness's services,
 * answering in process through Hono's `app.request`: no port and no server, so the fast tier tests
 * what a door adds to its operations (statuses, the envelope, headers, MCP's tools/list) in
 * milliseconds. The whole server, started, is test/e2e's (test/helpers/server.ts).
 */
import { join } from 'node:path';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { IMPORTS_DIR } from '../../src/data-dir';
import { siteFor } from '../../src/site';
import { ImportRuns } from '../../src/web/import-runs';
import { HARNESS_PORT, type Harness } from './operations';
import { scratchDir } from './scratch';

export interface InProcessApp {
  /** The address the app answers as (nothing listens there); `call` (test/helpers/server.ts) takes it. */
  url: string;
  /** A request as `fetch` takes one, answered by the app in process. */
  fetch: typeof fetch;
  /** Stops the app's import runs; the harness's `close` closes the rest. */
  close(): Promise<void>;
}

/** The app over `h`'s services, as `startServer` composes it, answering as http://127.0.0.1:9. */
export function inProcessApp(h: Harness): InProcessApp {
  const dataDir = scratchDir();
  const config = loadConfig({ ENGRAM_DATA_DIR: dataDir });
  const site = siteFor(config, HARNESS_PORT);
  const imports = new ImportRuns(join(dataDir, IMPORTS_DIR), h.clock);
  const app = createApp(
    h.services,
    site,
    { consentTtlDays: config.consentTtlDays, clientMetadata: { allowPrivate: false } },
    imports,
  );
  const answer = async (input: string | URL | Request, init?: RequestInit) => app.request(input, init);
  return { url: site.baseUrl, fetch: answer as typeof fetch, close: () => imports.stop() };
}
