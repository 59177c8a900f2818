import type { FlatHeaders } from '../http/request-context.js';

/** Every answer but the docs page's files: nothing in it may be run, framed or cached by a shared cache. */
export const API_SECURITY_HEADERS: FlatHeaders = [
  'X-Content-Type-Options', 'nosniff',
  'Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'",
  'Referrer-Policy', 'no-referrer',
  'Cache-Control', 'no-store',
];

/**
 * The docs page runs its own scripts and Swagger UI's inline styles, from this origin only. Its
 * files change only with a release: a browser may keep them, but asks each time whether they are
 * still current (its ETag), so a new release is never hidden behind a stale copy.
 */
export const PAGE_SECURITY_HEADERS: FlatHeaders = [
  'X-Content-Type-Options', 'nosniff',
  'Content-Security-Policy', "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
  'Referrer-Policy', 'no-referrer',
  'Cache-Control', 'no-cache',
];
