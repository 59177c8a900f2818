import type { DocumentServers } from './complete-document.js';

/**
 * The served document, generated on its first request and kept. The generator (trpc-to-openapi and
 * zod-openapi) is loaded then, not at start-up: most processes never serve the document, and its
 * memory would be theirs for nothing. `pnpm openapi` and a test keep the committed openapi.json
 * equal to what it generates.
 */
export const lazyDocument = (servers: DocumentServers) => {
  let json: Promise<string> | undefined;
  return (): Promise<string> =>
    (json ??= Promise.all([import('./document.js'), import('./serialize.js')]).then(([{ createOpenApiDocument }, { serializeDocument }]) =>
      serializeDocument(createOpenApiDocument(servers)),
    ));
};
