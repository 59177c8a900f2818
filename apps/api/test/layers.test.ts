import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

/**
 * The folders of apps/api/src from the top down: a folder may import its own files and the
 * folders below it, never one above, so a request's path reads one way (front door → transports →
 * admission → the request's context) and no two folders need each other. The root holds the wiring.
 */
const LAYERS = [
  ['.'],
  ['cli'],
  ['front-door', 'observability', 'openapi'],
  ['pages', 'rest', 'trpc'],
  ['stores'],
  ['admission'],
  ['settings'],
  ['http'],
];
/** Helpers for tests, which may import anything. */
const OUTSIDE = new Set(['testing']);

const layerOf = (folder: string) => LAYERS.findIndex((layer) => layer.includes(folder));

const sources = (folder: string): string[] =>
  readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return OUTSIDE.has(entry.name) ? [] : sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });

/** `rest/rest.ts` → `rest`; a file at the root → `.`. */
const folderOf = (file: string) => relative(SRC, dirname(file)).split('/')[0] || '.';

const imports = sources(SRC).flatMap((file) =>
  [...readFileSync(file, 'utf8').matchAll(/from '(\.{1,2}\/[^']+)'/g)].map(([, spec]) => ({
    file: relative(SRC, file),
    from: folderOf(file),
    to: folderOf(resolve(dirname(file), spec ?? '')),
  })),
);

describe('the folders of apps/api', () => {
  it('each have their place in the layers', () => {
    const folders = new Set(sources(SRC).map(folderOf));
    expect([...folders].filter((folder) => layerOf(folder) === -1)).toEqual([]);
  });

  it('import only their own files and the layers below them', () => {
    const upward = imports.filter(({ from, to }) => from !== to && layerOf(to) <= layerOf(from));
    expect(upward.map(({ file, to }) => `${file} imports ${to}`)).toEqual([]);
  });
});
