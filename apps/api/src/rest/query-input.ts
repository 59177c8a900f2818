import { parse } from 'node:querystring';

/**
 * A GET operation's input: its query and path parameters, as text for the procedure's schema to
 * read. A parameter given more than once (a repeated query parameter, or a query parameter named
 * like a path parameter) becomes a list and an empty one an empty string: validation refuses both,
 * naming the parameter, instead of one value silently winning.
 */
export const queryInput = (search: string, params: Readonly<Record<string, string>>) => {
  // node:querystring: lists for repeated names, '' for empty values, and an object without a
  // prototype, so `__proto__` is a parameter name like any other (and refused as unknown).
  const input: Record<string, string | string[] | undefined> = parse(search);
  for (const [name, value] of Object.entries(params)) {
    const seen = input[name];
    input[name] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  return input;
};
