import { REST_PREFIX } from '@petstore/core';
import type { Reply } from '../http/reply.js';
import { VERSION } from '../settings/version.js';

const HTML = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>Petstore ${VERSION}</title>
  </head>
  <body>
    <h1>Petstore ${VERSION}</h1>
    <p>A pet store's API: REST under <code>${REST_PREFIX}</code>, tRPC under <code>/trpc</code>. Every operation needs an API key as a bearer token.</p>
    <ul>
      <li><a href="/docs">The API reference</a> (<code>/docs</code>), where operations can be tried</li>
      <li><a href="${REST_PREFIX}/openapi.json">The OpenAPI document</a> (<code>${REST_PREFIX}/openapi.json</code>)</li>
      <li><a href="/healthz">Liveness</a> and <a href="/readyz">readiness</a></li>
    </ul>
  </body>
</html>
`;

/**
 * `/`: where someone who typed the service's address finds the reference and the document. A page
 * of links, no API: it takes no key, and it loads nothing, so the API's security headers fit it.
 */
export const homePage = (): Reply => ({ kind: 'body', status: 200, headers: [], body: HTML, type: 'text/html; charset=utf-8' });
