/**
 * Express's query parser for the OpenAPI adapter: every parameter becomes the list of its values.
 * The adapter skips parameters whose value is an empty string (`?limit=` would quietly become the
 * default) but unwraps one-element lists, so lists let an empty value reach validation and fail
 * there. A repeated parameter stays a list, which validation refuses.
 */
export const queryAsLists = (search: string): Record<string, string[]> => {
  const query: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  for (const [name, value] of new URLSearchParams(search)) {
    (query[name] ??= []).push(value);
  }
  return query;
};
