import type { OpenAPIObject } from 'openapi3-ts/oas31';

/** The one spelling of the document: the served file, the committed file and the test all use it. */
export const serializeDocument = (document: OpenAPIObject): string => `${JSON.stringify(document, null, 2)}\n`;
