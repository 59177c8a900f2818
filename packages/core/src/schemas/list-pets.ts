import { z } from 'zod';
import { Cursor } from './cursor.js';
import { integerParam } from './integers.js';
import { PetStatus } from './pet.js';

export const PAGE_SIZE = { min: 1, max: 100, default: 20 } as const;

export const ListPetsQuery = z
  .strictObject({
    limit: integerParam(
      z.int().min(PAGE_SIZE.min).max(PAGE_SIZE.max).default(PAGE_SIZE.default),
    ).meta({ description: 'Maximum number of animals to return.' }),
    status: PetStatus.optional().meta({ description: 'Filters animals by availability.' }),
    cursor: Cursor.optional(),
  })
  // A typed call may leave the whole query out: `listPets()` is the first page of 20.
  .prefault({});
export type ListPetsQuery = NonNullable<z.input<typeof ListPetsQuery>>;
export type ListPetsInput = z.output<typeof ListPetsQuery>;
