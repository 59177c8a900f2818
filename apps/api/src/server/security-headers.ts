import type { RequestHandler } from 'express';

/** JSON answers: nothing in them may be run, framed or cached by a shared cache. */
const API_HEADERS: [string, string][] = [
  ['X-Content-Type-Options', 'nosniff'],
  ['Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'"],
  ['Referrer-Policy', 'no-referrer'],
  ['Cache-Control', 'no-store'],
];

/** The docs page runs its own scripts and Swagger UI's inline styles, from this origin only. */
const DOCS_HEADERS: [string, string][] = [
  ['X-Content-Type-Options', 'nosniff'],
  [
    'Content-Security-Policy',
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
  ],
  ['Referrer-Policy', 'no-referrer'],
  // Its files change only with a release: a browser may keep them, but asks each time whether
  // they are still current (Last-Modified), so a new release is never hidden behind a stale copy.
  ['Cache-Control', 'no-cache'],
];

export const securityHeaders: RequestHandler = (req, res, next) => {
  for (const [name, value] of req.url.startsWith('/docs') ? DOCS_HEADERS : API_HEADERS) res.setHeader(name, value);
  next();
};
