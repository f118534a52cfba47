/**
 * Pages render when `engram` is started from any directory (desktop MCP clients start commands from
 * their own): Bun reads tsconfig's jsxImportSource only in the working directory, so elsewhere a
 * page without the pragma fails to load with "Cannot find module 'react/jsx-dev-runtime'".
 */
import { expect, it } from 'bun:test';
import { join } from 'node:path';

const ROOT = join(import.meta.dir, '..', '..');

it('every .tsx file names its JSX source in its first line', async () => {
  const files = [...new Bun.Glob('src/**/*.tsx').scanSync(ROOT)].sort();
  expect(files.length).toBeGreaterThan(0);
  const first = await Promise.all(
    files.map(async (f) => [f, (await Bun.file(join(ROOT, f)).text()).split('\n', 1)[0]]),
  );
  expect(first).toEqual(files.map((f) => [f, '/** @jsxImportSource hono/jsx */']));
});
