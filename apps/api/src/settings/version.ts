import { readFileSync } from 'node:fs';

/**
 * The service's version: `@petstore/api`'s, read from its package.json, which sits two folders up
 * from this file in the sources (`src/settings/`) and in the build (`dist/settings/`) alike, and in
 * the image. The listen line, `/healthz` and every command's `--version` say it.
 */
export const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** What `--version` prints. */
export const versionLine = (): string => `Petstore ${VERSION}`;
