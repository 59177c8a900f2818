import type { HeaderObject } from 'openapi3-ts/oas31';
import { ADDRESS_QUOTA, KEY_QUOTA, QUOTA_WINDOW_SECONDS } from '../admission/quota.js';
import { REQUEST_ID_HEADER, REQUEST_ID_PATTERN } from '../http/request-context.js';
import { SETTINGS } from '../settings/config.js';

const REQUEST_ID: HeaderObject = {
  description: 'Identifies the request in the service\'s logs: the one sent, when it is a plain token, or a new one.',
  required: true,
  // The plain tokens the service keeps; the ids it makes (a random prefix, a dot, a count) are plain tokens too.
  schema: { type: 'string', pattern: REQUEST_ID_PATTERN.source, maxLength: 128, examples: ['k3Jx0mQ9aL1B.1f'] },
};

/** RFC 9651: an Integer of a structured field has at most 15 digits. */
const SF_INTEGER_DIGITS = 15;

/** The text of a RateLimit field: one of the policies named, then two integer parameters. */
const quotaField = (policies: readonly string[], [first, second]: [string, string]) => ({
  type: 'string' as const,
  pattern: `^"(?:${policies.join('|')})";${first}=[0-9]{1,${SF_INTEGER_DIGITS}};${second}=[0-9]{1,${SF_INTEGER_DIGITS}}$`,
  maxLength: Math.max(...policies.map((policy) => `"${policy}";${first}=;${second}=`.length)) + 2 * SF_INTEGER_DIGITS,
});

/**
 * The quotas a response can report (IETF httpapi RateLimit fields), each as the components
 * `RateLimit-Policy.<policy>` and `RateLimit.<policy>`: requests by a valid key (`per-key`), and
 * failed authentications from one client address (`per-address`). Both count per minute.
 */
const QUOTAS = {
  [KEY_QUOTA]: { counts: 'requests with this API key', example: SETTINGS.rateLimitPerMinute.schema.parse(undefined) },
  [ADDRESS_QUOTA]: { counts: 'failed authentications from this client address', example: SETTINGS.authFailuresPerMinute.schema.parse(undefined) },
} as const;
type QuotaPolicy = keyof typeof QUOTAS;

const quotaHeaders = (policy: QuotaPolicy): Record<string, HeaderObject> => ({
  [`RateLimit-Policy.${policy}`]: {
    description: `The quota of ${QUOTAS[policy].counts}: \`q\` per window of \`w\` seconds. Absent when that limit is off.`,
    schema: { ...quotaField([policy], ['q', 'w']), examples: [`"${policy}";q=${QUOTAS[policy].example};w=${QUOTA_WINDOW_SECONDS}`] },
  },
  [`RateLimit.${policy}`]: {
    description: `What is left of the quota of ${QUOTAS[policy].counts}: \`r\` more for the next \`t\` seconds. Absent when that limit is off.`,
    schema: { ...quotaField([policy], ['r', 't']), examples: [`"${policy}";r=${QUOTAS[policy].example - 1};t=${QUOTA_WINDOW_SECONDS}`] },
  },
});

/** The headers responses share, described once as components. */
export const COMPONENT_HEADERS: Record<string, HeaderObject> = {
  [REQUEST_ID_HEADER]: REQUEST_ID,
  ...quotaHeaders(KEY_QUOTA),
  ...quotaHeaders(ADDRESS_QUOTA),
};

const headerRef = (component: string) => ({ $ref: `#/components/headers/${component}` });

/** The RateLimit fields of one quota, under the names they are sent with. */
const quotaRefs = (policy: QuotaPolicy) => ({
  'RateLimit-Policy': headerRef(`RateLimit-Policy.${policy}`),
  RateLimit: headerRef(`RateLimit.${policy}`),
});

/** A 429 reports the quota that is spent, whichever of them it is. */
const spentQuota = (description: string, parameters: [string, string]): HeaderObject => ({
  description: `${description} Absent when that limit is off.`,
  schema: quotaField(Object.keys(QUOTAS), parameters),
});

/**
 * The headers the front door adds to every response by status, besides the response's own: a 401
 * reports the client address's quota of failed authentications, a 429 the quota that is spent,
 * every other response the key's quota.
 */
export const transportHeaders = (status: string) => {
  if (status === '401') return { [REQUEST_ID_HEADER]: headerRef(REQUEST_ID_HEADER), ...quotaRefs(ADDRESS_QUOTA) };
  if (status === '429') {
    return {
      [REQUEST_ID_HEADER]: headerRef(REQUEST_ID_HEADER),
      'RateLimit-Policy': spentQuota(
        'The quota that is spent: the API key\'s (`per-key`), or that of failed authentications from the client address (`per-address`).',
        ['q', 'w'],
      ),
      RateLimit: spentQuota('What is left of the spent quota: `r` more for the next `t` seconds.', ['r', 't']),
    };
  }
  return { [REQUEST_ID_HEADER]: headerRef(REQUEST_ID_HEADER), ...quotaRefs(KEY_QUOTA) };
};
