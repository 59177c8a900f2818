import type { HeaderObject, OperationObject, ParameterObject, ResponseObject, SchemaObject } from 'openapi3-ts/oas31';
import { ENTITY_TAG_LENGTH } from '../exchange/exchange.js';

/** The strong tag of a GET's representation (`entityTag`, exchange/exchange.ts). */
const ENTITY_TAG_SCHEMA: SchemaObject = {
  type: 'string',
  pattern: '^"[A-Za-z0-9_-]{27}"$',
  maxLength: ENTITY_TAG_LENGTH,
  examples: ['"2jmj7l5rSw0yVb_vlWAYkK_YBwk"'],
};

const ETAG: HeaderObject = {
  description: 'A strong tag of this representation; send it back as `If-None-Match` to get a 304 while it is current.',
  required: true,
  schema: ENTITY_TAG_SCHEMA,
};

const IF_NONE_MATCH: ParameterObject = {
  name: 'If-None-Match',
  in: 'header',
  description: 'Tags the client holds (`*`: any): when one is current, the answer is 304 with no body, and the quota is not spent.',
  schema: {
    type: 'string',
    // `*`, or a list of entity tags, weak or strong (RFC 9110 §13.1.2).
    pattern: '^(\\*|(W/)?"[^"]*"(\\s*,\\s*(W/)?"[^"]*")*)$',
    maxLength: 1024,
    examples: ['"2jmj7l5rSw0yVb_vlWAYkK_YBwk"'],
  },
};

/**
 * The REST transport answers every GET conditionally (rest/rest.ts): its 200 carries an
 * ETag, it takes If-None-Match, and it may answer 304 Not Modified, with the tag and the headers of
 * the 200 but no body.
 */
export const describeConditionalGet = (operation: OperationObject, responses: Record<string, ResponseObject>) => {
  const ok = responses['200'];
  if (!ok) return;
  ok.headers = { ...ok.headers, ETag: ETAG };
  operation.parameters = [...(operation.parameters ?? []), IF_NONE_MATCH];
  responses['304'] = {
    description: 'Not Modified: the `If-None-Match` tag is current. No body; the quota is not spent.',
    headers: { ...ok.headers },
  };
};
