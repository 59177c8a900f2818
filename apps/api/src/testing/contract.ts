import { Ajv2020 } from 'ajv/dist/2020.js';
import type { HeaderObject, OpenAPIObject, OperationObject, ReferenceObject, ResponseObject } from 'openapi3-ts/oas31';
import { resolveReference } from '../openapi/resolve-reference.js';

/** One request and its response, as a test saw them. */
export interface SeenResponse {
  method: string;
  url: URL;
  status: number;
  header(name: string): string | null;
  /** The parsed JSON body, or undefined when there is none (HEAD). */
  body: unknown;
}

const pointer = (...segments: string[]) =>
  segments.map((segment) => segment.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

/** The path of the component an item refers to (`components`, `headers`, name), if it is a reference. */
const referencedAt = (item: object): string[] | undefined => {
  const ref = (item as { $ref?: unknown }).$ref;
  return typeof ref === 'string' ? ref.replace('#/', '').split('/') : undefined;
};

const templateToRegExp = (template: string) =>
  new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);

export interface ContractCheckerOptions {
  /**
   * Response headers the document declares that this checker neither requires nor checks, by
   * name, in any case. For servers other than the service that serve the same operations (the
   * bench's peers): they do not send the service's own extras (request ids, ETags, rate limit
   * headers), and the rest of their answers is held to the contract all the same. The service's
   * own checks pass none.
   */
  ignoredHeaders?: readonly string[];
}

/**
 * Checks responses against an OpenAPI document: the status must be one the operation documents,
 * the body must match its schema, and its headers must be there and match theirs. A path or method
 * the document does not know must still answer with the Error body.
 */
export const createContractChecker = (document: OpenAPIObject, { ignoredHeaders = [] }: ContractCheckerOptions = {}) => {
  const ignored = new Set(ignoredHeaders.map((name) => name.toLowerCase()));
  // The whole document is registered once; schemas are compiled from JSON pointers into it, so
  // every `#/components/...` reference resolves. OpenAPI's own keywords are not JSON Schema, hence
  // strict mode off.
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addFormat('int64', { type: 'number', validate: (value: number) => Number.isSafeInteger(value) });
  ajv.addFormat('int32', { type: 'number', validate: (value: number) => Number.isInteger(value) && value >= -(2 ** 31) && value < 2 ** 31 });
  ajv.addSchema({ ...document, $id: 'openapi.json' });
  const validatorAt = (...segments: string[]) => {
    const validator = ajv.getSchema(`openapi.json#/${pointer(...segments)}`);
    if (!validator) throw new Error(`no schema at ${segments.join(' ')}`);
    return validator;
  };

  const basePath = new URL(document.servers?.[0]?.url ?? 'http://x/').pathname.replace(/\/$/, '');
  const operations = Object.entries(document.paths ?? {}).map(([template, item]) => ({
    template,
    matches: templateToRegExp(template),
    item: item as Record<string, OperationObject | undefined>,
  }));

  return (seen: SeenResponse): string[] => {
    const path = seen.url.pathname;
    if (!path.startsWith(`${basePath}/`) || path === `${basePath}/openapi.json`) return [];
    const method = seen.method === 'HEAD' ? 'get' : seen.method.toLowerCase();
    const label = `${seen.method} ${path} → ${seen.status}`;
    const problems: string[] = [];
    const check = (validate: ReturnType<typeof validatorAt>, value: unknown, what: string) => {
      if (!validate(value)) problems.push(`${label}: ${what} ${ajv.errorsText(validate.errors)}`);
    };

    const contentType = seen.header('content-type') ?? '';
    // A 304 has no body, so no type; every other answer is JSON.
    if (seen.status !== 304 && !/^application\/json(;|$)/.test(contentType)) problems.push(`${label}: Content-Type is "${contentType}"`);

    const found = operations.find((operation) => operation.matches.test(path.slice(basePath.length)));
    const operation = found?.item[method];
    if (!found || !operation) {
      if (seen.status < 400) problems.push(`${label}: succeeded on an undocumented operation`);
      else if (seen.body !== undefined) check(validatorAt('components', 'schemas', 'Error'), seen.body, 'body');
      return problems;
    }

    const listed = operation.responses?.[String(seen.status)] as ResponseObject | ReferenceObject | undefined;
    const response = resolveReference<ResponseObject>(document, listed);
    if (!listed || !response) return [...problems, `${label}: status not documented`];
    // A response is described in place or in components.responses.
    const at = referencedAt(listed) ?? ['paths', found.template, method, 'responses', String(seen.status)];
    if (seen.body !== undefined) {
      if (!response.content?.['application/json']) problems.push(`${label}: a body where none is documented`);
      else check(validatorAt(...at, 'content', 'application/json', 'schema'), seen.body, 'body');
    }
    for (const [name, declared] of Object.entries(response.headers ?? {})) {
      if (ignored.has(name.toLowerCase())) continue;
      // A header is either described in place or a reference to components.headers.
      const header = resolveReference<HeaderObject>(document, declared);
      const schemaAt = [...(referencedAt(declared) ?? [...at, 'headers', name]), 'schema'];
      const value = seen.header(name);
      if (value === null) {
        if (header?.required) problems.push(`${label}: required header ${name} missing`);
      } else if (header?.schema) {
        // Header values travel as text; a number-typed header is checked as the number it spells.
        const type = (header.schema as { type?: string }).type;
        const typed = (type === 'integer' || type === 'number') && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
        check(validatorAt(...schemaAt), typed, `header ${name}`);
      }
    }
    return problems;
  };
};
export type ContractChecker = ReturnType<typeof createContractChecker>;
