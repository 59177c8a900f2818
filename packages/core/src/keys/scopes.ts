import { z } from 'zod';

/**
 * What a key may do, per resource and access (as Stripe's restricted keys). A key made without
 * naming any has them all, as every key had before scopes existed.
 */
export const API_KEY_SCOPES = ['pets:read', 'pets:write'] as const;
export const ApiKeyScope = z.enum(API_KEY_SCOPES);
export type ApiKeyScope = z.infer<typeof ApiKeyScope>;

/** How a key's scopes are stored: space-separated, as OAuth's `scope` parameter (RFC 6749 §3.3). */
export const ALL_SCOPES_STORED = API_KEY_SCOPES.join(' ');

const isScope = (word: string): word is ApiKeyScope => (API_KEY_SCOPES as readonly string[]).includes(word);

/** A stored scope list, read on every authenticated request: words it does not know grant nothing. */
export const scopesFromStored = (stored: string): ApiKeyScope[] => stored.split(' ').filter(isScope);

/** The scopes in their canonical order, each once; undefined or empty means every scope. */
export const canonicalScopes = (scopes: readonly ApiKeyScope[] | undefined): ApiKeyScope[] =>
  scopes === undefined || scopes.length === 0 ? [...API_KEY_SCOPES] : API_KEY_SCOPES.filter((scope) => scopes.includes(scope));
