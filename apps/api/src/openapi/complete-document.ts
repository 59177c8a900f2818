import type { OpenAPIObject, ReferenceObject, ResponseObject } from 'openapi3-ts/oas31';
import type { RestOperation } from '../rest/routes.js';
import { describeConditionalGet } from '../http/conditional-get.js';
import { describeItemsAsTheBody, moveSuccessTo, nameRequestBody, withoutGeneratedErrorSchemas } from './generator-gaps.js';
import { successHeaders } from './success-headers.js';
import { describeError, transportErrors } from './transport-errors.js';
import { COMPONENT_HEADERS, transportHeaders } from './transport-headers.js';

export interface DocumentServers {
  publicBaseUrl: string;
  stagingBaseUrl?: string | undefined;
}

export interface Completion {
  operations: RestOperation[];
  servers: DocumentServers;
  /** Tag descriptions; the generator only takes names. */
  tags: Record<string, string>;
}

/** A schema's component name (`NewPet`), from its zod meta. */
const schemaId = (schema: { meta(): { id?: unknown } | undefined }): string | undefined => {
  const id = schema.meta()?.id;
  return typeof id === 'string' ? id : undefined;
};

/**
 * What trpc-to-openapi cannot say, added to the document it generated from the procedures' meta
 * and zod schemas. Everything here is read from the same meta, constants and base path the REST
 * transport runs on; what the meta or `.meta()` can say is said there instead.
 */
export const completeDocument = (generated: OpenAPIObject, { operations, servers, tags }: Completion): OpenAPIObject => {
  const document = structuredClone(generated);
  // The generator takes one base URL; the interface has a staging server too, and OWASP's API
  // inventory rule asks whether each is internal (neither is: both are for the interface's clients).
  document.servers = [
    { url: servers.publicBaseUrl, description: 'Production', 'x-internal': false },
    ...(servers.stagingBaseUrl ? [{ url: servers.stagingBaseUrl, description: 'Staging', 'x-internal': false }] : []),
  ];
  // The generator takes tag names only.
  document.tags = Object.entries(tags).map(([name, description]) => ({ name, description }));
  const components = (document.components ??= {});
  // The request id and quota headers the front door adds to every response, described once.
  components.headers = { ...components.headers, ...COMPONENT_HEADERS };
  components.schemas = withoutGeneratedErrorSchemas(components.schemas ?? {});

  for (const restOperation of operations) {
    const { method, path, meta } = restOperation;
    const operation = document.paths?.[path]?.[method.toLowerCase() as 'get'];
    if (!operation) throw new Error(`the generated document has no ${method} ${path}`);
    const responses = (operation.responses ??= {}) as Record<string, ResponseObject>;

    if (meta.paginated) describeItemsAsTheBody(document, responses['200']);
    const successStatus = meta.successStatus ?? 200;
    moveSuccessTo(successStatus, responses);
    const success = responses[String(successStatus)];
    // Location, next-page Link, deprecation: the transport writes them from the meta and the base path.
    if (success) success.headers = { ...successHeaders(document, operation, restOperation), ...success.headers };

    // The operation's own errors (its meta) and the transport's, all with the Error body, each
    // status described once among the components.
    const errors = [...Object.entries(meta.openapi?.errorResponses ?? {}), ...Object.entries(transportErrors({ takesBody: operation.requestBody !== undefined }))];
    const errorRefs: Record<string, ReferenceObject> = {};
    for (const [status, description] of errors) errorRefs[status] = describeError(components, { status: Number(status), description: String(description), scope: meta.scope });
    Object.assign(responses, errorRefs);
    // Spectral's oas rules accept scopes in a security requirement only for OAuth schemes, so the
    // description says it; the 403's challenge names it too.
    operation.description = `${operation.description ?? ''} Needs an API key with the \`${meta.scope}\` scope (403 otherwise).`.trim();

    nameRequestBody(document, operation, schemaId(restOperation.operation.input));
    if (method === 'GET') describeConditionalGet(operation, responses);
    for (const [status, response] of Object.entries(responses)) {
      // An error's headers are in its component already.
      if (!(status in errorRefs)) response.headers = { ...response.headers, ...transportHeaders(status) };
    }
    // The generator writes an empty list for an operation that takes no parameters.
    if (operation.parameters?.length === 0) delete operation.parameters;
  }

  return document;
};
