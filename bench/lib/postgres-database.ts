/** A new database for a benchmark: on the server at `base`, or on a throwaway one started from the machine's binaries. */
import { SQL } from 'bun';
import { testPostgres } from '../../test/helpers/postgres';

export async function newBenchDatabase(base: string | undefined, name: string): Promise<string> {
  const server =
    base ??
    (() => {
      const started = testPostgres();
      if (typeof started === 'string') throw new Error(`no PostgreSQL: ${started}; pass --database URL`);
      return started.url;
    })();
  const admin = new SQL({ url: server, max: 1 });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  await admin.close();
  const url = new URL(server);
  url.pathname = `/${name}`;
  return url.toString();
}
