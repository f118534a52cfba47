/**
 * A Bun preload for test/e2e/rest/cli.test.ts: any module of the server proper (src/server.ts,
 * src/app.ts, src/web, src/storage, src/learning) throws "tripwire: loaded …" when loaded, so a
 * test can show that a light command never loads it. The learning queue's writes
 * (src/learning/queue.ts, and the chat turns' keyword context it writes with a document's passages
 * and a delete, src/learning/exchange.ts: no import but types and small text functions) are the
 * operations' own, which the bridge's tool descriptions load: not the learning machinery.
 */
import { plugin } from 'bun';

const SRC = `${new URL('../../../src/', import.meta.url).pathname}`;
const SERVER = /\/src\/(server\.ts|app\.ts|web\/|storage\/|learning\/(?!(queue|exchange)\.ts$))/;

plugin({
  name: 'server-tripwire',
  setup(build) {
    build.onLoad({ filter: SERVER }, (args) => ({
      contents: `throw new Error(${JSON.stringify(`tripwire: loaded ${args.path.replace(SRC, 'src/')}`)});`,
      loader: 'js',
    }));
  },
});
