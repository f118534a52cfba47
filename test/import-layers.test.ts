/**
 * The arrows of src/ point one way (docs/architecture.md, "Which way the arrows point"): every
 * module (a folder of src/, or a file at its top) sits in a layer, and imports only modules of the
 * layers below its own; and no file reaches back to itself through others. An import that points
 * up, or a new module nobody placed, fails here with the import that does it.
 */
import { describe, expect, it } from 'bun:test';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** Lowest first. Within a layer no module imports another; the foundations come in three, so that they may. */
const LAYERS: string[][] = [
  // Foundations: small modules every layer reads.
  ['names', 'errors', 'ids', 'clock', 'log', 'stopwords', 'data-dir', 'collect-garbage-soon', 'trusted-proxies'],
  ['limits', 'config'],
  ['site'],
  ['storage'],
  // Services shared by several layers above: who a caller is, the embedding models, the guarded fetcher, the language model.
  ['auth', 'embedders', 'fetch', 'language-model'],
  ['search'],
  ['learning'],
  ['agent', 'importers'],
  ['operations'],
  // The doors, each allowed what the ones before it hold.
  ['http'],
  ['web'],
  ['oauth'],
  ['mcp'],
  // Composition: the app of every door, the services, the server, the command line and its entry.
  ['app'],
  ['services'],
  ['server'],
  ['cli'],
  ['main'],
];

const SRC = resolve(import.meta.dir, '../src');

const layerOf = new Map(LAYERS.flatMap((modules, layer) => modules.map((m) => [m, layer] as const)));

/** A path under src/ → its module: the first folder, or the file's name without its extension. */
const moduleOf = (path: string): string => {
  const [first, ...rest] = relative(SRC, path).split('/');
  return rest.length ? first! : first!.replace(/\.d\.ts$|\.tsx?$/, '');
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

/**
 * The relative specifiers a file loads: its static imports and re-exports (type-only ones too: a
 * reader follows them as well), dynamic imports, and the worker entries it starts by URL. Only code
 * is read: a line of a comment never counts.
 */
function specifiersOf(text: string): string[] {
  const code = text
    .replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' '))
    .split('\n')
    .map((line) => (/^\s*\/\//.test(line) ? '' : line))
    .join('\n');
  const clause = String.raw`(?:type\s+)?(?:\*(?:\s+as\s+\w+)?|\{[^}]*\}|\w+(?:\s*,\s*(?:\{[^}]*\}|\*\s+as\s+\w+))?)`;
  const patterns = [
    new RegExp(String.raw`^\s*(?:import|export)\s+${clause}\s+from\s+['"]([^'"]+)['"]`, 'gm'),
    /^\s*import\s+['"]([^'"]+)['"]/gm,
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\bnew URL\(\s*['"]([^'"]+)['"]\s*,\s*import\.meta\.url\s*\)/g,
  ];
  return patterns.flatMap((p) => [...code.matchAll(p)].map((m) => m[1]!)).filter((s) => s.startsWith('.'));
}

/** The file a relative specifier names, or null when it is not a source file (package.json, a model, a migration). */
function target(from: string, specifier: string): string | null {
  const base = resolve(dirname(from), specifier);
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`]) {
    if (/\.tsx?$/.test(candidate) && candidate.startsWith(`${SRC}/`) && existsSync(candidate)) return candidate;
  }
  return null;
}

const files = sourceFiles(SRC);
const edges = new Map(
  files.map((file) => [file, specifiersOf(readFileSync(file, 'utf8')).flatMap((s) => target(file, s) ?? [])]),
);
const show = (file: string) => relative(resolve(SRC, '..'), file);

describe('the import graph of src/', () => {
  it('places every module of src/ in a layer', () => {
    expect([...new Set(files.map(moduleOf))].filter((m) => !layerOf.has(m))).toEqual([]);
  });

  it('has no import that points to a module of its own layer or one above it', () => {
    const upward: string[] = [];
    for (const [file, targets] of edges) {
      const from = moduleOf(file);
      for (const to of targets) {
        const into = moduleOf(to);
        if (into !== from && layerOf.get(into)! >= layerOf.get(from)!) upward.push(`${show(file)} → ${show(to)}`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('has no circle between files', () => {
    // Tarjan's strongly connected components: any of more than one file is a circle.
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const onStack = new Set<string>();
    const circles: string[][] = [];
    let next = 0;
    const visit = (v: string) => {
      index.set(v, next);
      low.set(v, next++);
      stack.push(v);
      onStack.add(v);
      for (const w of edges.get(v) ?? []) {
        if (!index.has(w)) {
          visit(w);
          low.set(v, Math.min(low.get(v)!, low.get(w)!));
        } else if (onStack.has(w)) {
          low.set(v, Math.min(low.get(v)!, index.get(w)!));
        }
      }
      if (low.get(v) !== index.get(v)) return;
      const component: string[] = [];
      for (let w = stack.pop()!; ; w = stack.pop()!) {
        onStack.delete(w);
        component.push(show(w));
        if (w === v) break;
      }
      if (component.length > 1) circles.push(component.sort());
    };
    for (const file of files) if (!index.has(file)) visit(file);
    expect(circles).toEqual([]);
  });

  it('reads what a file imports, and nothing a comment says', () => {
    const text = [
      "import type { A } from './a';",
      "import { type B, c } from '../b';",
      'import {',
      '  d,',
      "} from './d';",
      "export * from './e';",
      "import './f';",
      "const g = await import('./g');",
      "const h = new URL('./h.ts', import.meta.url);",
      "// import x from './commented';",
      "/** import y from './documented'; */",
      "import z from 'zod';",
    ].join('\n');
    expect(specifiersOf(text)).toEqual(['./a', '../b', './d', './e', './f', './g', './h.ts']);
  });
});
