/**
 * Requests per key and minute that the bench's load never reaches: the service and the Fastify peer
 * with the features on count every request against it, and pay for the counting, without refusing
 * any.
 */
export const UNREACHED_QUOTA_PER_MINUTE = 999_999_999;
