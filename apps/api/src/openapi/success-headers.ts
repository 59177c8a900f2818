import { MAX_SAFE_ID, PAGE_SIZE, encodeCursor } from '@petstore/core';
import type { HeaderObject, OpenAPIObject, OperationObject, ParameterObject, ReferenceObject, SchemaObject } from 'openapi3-ts/oas31';
import type { RestOperation } from '../rest/routes.js';
import { resolveReference } from './resolve-reference.js';

/** RFC 9651: an sf-integer has at most 15 digits; an sf-date is `@` and one. */
const LONGEST_SF_DATE = `@-${'9'.repeat(15)}`;
/** RFC 9110's IMF-fixdate, the one form of HTTP date a server sends; always 29 characters. */
const IMF_FIXDATE =
  '^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), [0-9]{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2} GMT$';
const IMF_FIXDATE_LENGTH = 'Thu, 05 Dec 2030 00:00:00 GMT'.length;
/** A cursor's spelling (core's `Cursor`): characters URLSearchParams sends unescaped. */
const BASE64URL_PATTERN = '^[A-Za-z0-9_-]+$';

const escapeForPattern = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const longest = (texts: readonly string[]) => texts.reduce((longer, text) => (text.length > longer.length ? text : longer), '');

const resolve = (document: OpenAPIObject, schema: SchemaObject | ReferenceObject | undefined): SchemaObject => {
  const resolved = resolveReference<SchemaObject>(document, schema);
  if (!resolved) throw new Error(`cannot resolve the schema ${(schema as ReferenceObject | undefined)?.$ref ?? ''}`);
  return resolved;
};

/** The longest spelling a query parameter's value can have once the request is valid. */
const longestValue = (parameter: ParameterObject, schema: SchemaObject): string => {
  if (schema.enum) return longest(schema.enum.map(String));
  if (schema.type === 'integer' && schema.minimum !== undefined && schema.maximum !== undefined) {
    return longest([String(schema.minimum), String(schema.maximum)]);
  }
  if (schema.type === 'string' && schema.maxLength !== undefined && schema.pattern === BASE64URL_PATTERN) return 'A'.repeat(schema.maxLength);
  // Guessing would understate the Link's maxLength, and the responses would break the document.
  throw new Error(`the query parameter ${parameter.name} has no longest value this can tell`);
};

/**
 * The longest query a valid request to the operation can have: the next page's `Link` repeats the
 * request's query with its `cursor` replaced (rest/rest.ts, `nextPageLink`).
 */
const longestQuery = (document: OpenAPIObject, operation: OperationObject): string => {
  const query = ((operation.parameters ?? []) as ParameterObject[]).filter((parameter) => parameter.in === 'query');
  if (!query.some((parameter) => parameter.name === 'cursor')) throw new Error('a paginated operation takes a `cursor`');
  return query.map((parameter) => `${parameter.name}=${longestValue(parameter, resolve(document, parameter.schema))}`).join('&');
};

const text = (pattern: string, maxLength: number, example: string): SchemaObject => ({ type: 'string', pattern, maxLength, examples: [example] });

/**
 * The headers the REST transport adds to a success (rest/rest.ts, `success`), described
 * from what it writes them from: the operation's meta, its path and the base path. They live here
 * rather than in the procedures' `responseHeaders` because their values name addresses under the
 * base path, which core does not know.
 */
export const successHeaders = (document: OpenAPIObject, operation: OperationObject, restOp: RestOperation): Record<string, HeaderObject> => {
  const { meta, name, address, deprecation } = restOp;
  const headers: Record<string, HeaderObject> = {};
  if (meta.paginated && meta.deprecation) throw new Error(`${name}: one Link would carry both its next page and its successor, which this does not describe`);

  if (restOp.createdUnder !== undefined) {
    const under = restOp.createdUnder;
    headers.Location = {
      description: 'Address of what was just added.',
      required: true,
      schema: text(`^${escapeForPattern(under)}[1-9][0-9]*$`, `${under}${MAX_SAFE_ID}`.length, `${under}1`),
    };
  }

  if (meta.paginated) {
    headers.Link = {
      description:
        'RFC 8288 link to the next page (`rel="next"`): the same query, with the next page\'s `cursor`. Absent on the last page.',
      schema: text(
        '^<[^>]+>; rel="next"$',
        `<${address}?${longestQuery(document, operation)}>; rel="next"`.length,
        `<${address}?limit=${PAGE_SIZE.default}&cursor=${encodeCursor(PAGE_SIZE.default)}>; rel="next"`,
      ),
    };
  }

  // The values the REST transport sends, so the examples are what a client sees.
  if (deprecation) {
    const [, deprecatedAt = '', , sunsetAt = ''] = deprecation.headers.map(String);
    headers.Deprecation = {
      description: 'RFC 9745: when the operation was deprecated, as `@<epoch seconds>`.',
      required: true,
      schema: text('^@-?[0-9]{1,15}$', LONGEST_SF_DATE.length, deprecatedAt),
    };
    headers.Sunset = {
      description: 'RFC 8594: when the operation will be removed.',
      required: true,
      schema: text(IMF_FIXDATE, IMF_FIXDATE_LENGTH, sunsetAt),
    };
    headers.Link = {
      description: 'RFC 8288 link to the operation that replaces this one (`rel="successor-version"`).',
      required: true,
      schema: text('^<[^>]+>; rel="successor-version"$', deprecation.link.length, deprecation.link),
    };
  }
  return headers;
};
