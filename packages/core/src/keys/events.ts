/**
 * What the audit trail records: a key created, rotated (the entry names the new key and the one it
 * replaced), revoked, and a rotated-in key's first use, which shows the app now holds the new key.
 */
export const API_KEY_EVENTS = ['created', 'rotated', 'revoked', 'first_use'] as const;
export type ApiKeyEventName = (typeof API_KEY_EVENTS)[number];
