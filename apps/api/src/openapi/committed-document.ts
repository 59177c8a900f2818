import { fileURLToPath } from 'node:url';
import { readConfig } from '../settings/config.js';
import { createOpenApiDocument } from './document.js';
import { serializeDocument } from './serialize.js';

/** openapi.json at the repository root, written by `pnpm openapi`. */
export const COMMITTED_DOCUMENT_PATH = fileURLToPath(new URL('../../../../openapi.json', import.meta.url));

/** The committed document is the one for the default settings, whatever the shell has set. */
export const canonicalDocument = (): string => serializeDocument(createOpenApiDocument(readConfig({})));
