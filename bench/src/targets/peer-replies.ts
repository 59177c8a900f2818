/** The statuses the peers answer with, and the code the contract's Error body names for each. */
const CODES: Partial<Record<number, string>> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  404: 'NOT_FOUND',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'TOO_MANY_REQUESTS',
};

/**
 * The contract's Error body for a status the framework chose. A status outside the table is a
 * crash, whose own message may hold internals, so it is never shown.
 */
export const peerErrorBody = (status: number, message: string): { code: string; message: string; status: number } => {
  const code = CODES[status];
  return code === undefined ? { code: 'INTERNAL_SERVER_ERROR', message: 'The server could not handle the request.', status: 500 } : { code, message, status };
};

/** What every target sends with a deprecated get by id (RFC 9745, RFC 8594, the successor's link), as the contract fixes it. */
export const GET_PET_DEPRECATION_HEADERS: Readonly<Record<string, string>> = {
  Deprecation: '@1795305600',
  Sunset: 'Thu, 05 Dec 2030 00:00:00 GMT',
  Link: '</v1/pets>; rel="successor-version"',
};
