import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Router } from 'express';
import { methodNotAllowed } from '../server/fallbacks.js';

const PAGE = fileURLToPath(new URL('../../public/docs', import.meta.url));
const SWAGGER_UI = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** Each file the page loads, and where it lives; nothing else of either folder is served. */
const FILES: Record<string, { root: string; file: string }> = {
  '/': { root: PAGE, file: 'index.html' },
  '/init.js': { root: PAGE, file: 'init.js' },
  '/assets/swagger-ui.css': { root: SWAGGER_UI, file: 'swagger-ui.css' },
  '/assets/swagger-ui-bundle.js': { root: SWAGGER_UI, file: 'swagger-ui-bundle.js' },
  '/assets/favicon-32x32.png': { root: SWAGGER_UI, file: 'favicon-32x32.png' },
};

/**
 * `/docs`: Swagger UI rendering `/v1/openapi.json`, served entirely from installed packages, so
 * the page works with no internet. A person can authorise with a key and try each operation.
 */
export const docsPage = (): Router => {
  const router = express.Router();
  for (const [path, { root, file }] of Object.entries(FILES)) {
    router
      .route(path)
      .get((_req, res) => {
        // The Cache-Control the docs headers set, not send's own `public, max-age=0`.
        res.sendFile(file, { root, cacheControl: false });
      })
      .all(methodNotAllowed(['GET', 'HEAD']));
  }
  return router;
};
