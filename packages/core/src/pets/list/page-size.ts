/** How many animals a page of `listPets` holds: the `limit` parameter's bounds and default. */
export const PAGE_SIZE = { min: 1, max: 100, default: 20 } as const;
