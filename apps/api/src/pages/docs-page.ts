import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { entityTag, isNotModified } from '../http/conditional-get.js';
import type { Reply } from '../http/reply.js';

const PAGE = fileURLToPath(new URL('../../public/docs', import.meta.url));
const SWAGGER_UI = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** Each file the page loads, and where it lives; nothing else of either folder is served. */
const FILES: Record<string, { path: string; type: string }> = {
  '/': { path: join(PAGE, 'index.html'), type: 'text/html; charset=utf-8' },
  '/init.js': { path: join(PAGE, 'init.js'), type: 'text/javascript; charset=utf-8' },
  '/assets/swagger-ui.css': { path: join(SWAGGER_UI, 'swagger-ui.css'), type: 'text/css; charset=utf-8' },
  '/assets/swagger-ui-bundle.js': { path: join(SWAGGER_UI, 'swagger-ui-bundle.js'), type: 'text/javascript; charset=utf-8' },
  '/assets/favicon-32x32.png': { path: join(SWAGGER_UI, 'favicon-32x32.png'), type: 'image/png' },
};

/** The paths under `/docs` that hold a file. */
export const DOCS_FILES = Object.keys(FILES);

interface Loaded {
  body: Buffer;
  tag: string;
}

/**
 * `/docs`: Swagger UI rendering `/v1/openapi.json`, served entirely from installed packages, so the
 * page works with no internet. Each file is read once, when first asked for, and answered with an
 * ETag, so a browser that holds it gets a 304.
 */
export const createDocsPage = () => {
  const loaded = new Map<string, Promise<Loaded>>();
  const load = (path: string) =>
    readFile(path).then((body) => ({ body, tag: entityTag(body) }));

  return async (file: string, ifNoneMatch: string | undefined): Promise<Reply> => {
    const entry = FILES[file];
    if (!entry) throw new Error(`no docs file ${file}`);
    let pending = loaded.get(file);
    if (!pending) loaded.set(file, (pending = load(entry.path)));
    const { body, tag } = await pending;
    if (isNotModified(ifNoneMatch, tag)) return { kind: 'empty', status: 304, page: true, headers: ['ETag', tag] };
    return { kind: 'body', status: 200, body, type: entry.type, page: true, headers: ['ETag', tag] };
  };
};
