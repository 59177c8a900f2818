import type { OpenAPIObject, ReferenceObject } from 'openapi3-ts/oas31';

/**
 * What an OpenAPI item is: the item itself, or what its `#/components/<kind>/<name>` reference
 * points at, followed until it is no reference. A reference's own `description` overrides the
 * component's, as OpenAPI 3.1 has it.
 */
export const resolveReference = <T extends object>(document: OpenAPIObject, item: T | ReferenceObject | undefined): T | undefined => {
  if (item === undefined || !('$ref' in item)) return item;
  const [, , kind, name] = item.$ref.split('/');
  const components = document.components as Record<string, Record<string, T | ReferenceObject> | undefined> | undefined;
  const target = resolveReference(document, components?.[kind ?? '']?.[name ?? '']);
  return target && item.description !== undefined ? { ...target, description: item.description } : target;
};
