import { z } from 'zod';
import { Cursor } from './cursor.js';
import { integerParam } from '../integer-param.js';
import { PAGE_SIZE } from './page-size.js';
import { PetStatus } from '../pet.js';

// In a module of its own so that `Pets` (pet.ts, imported above) can be bounded by it too.
export { PAGE_SIZE };

export const ListPetsQuery = z
  .strictObject({
    limit: integerParam(
      z.int().min(PAGE_SIZE.min).max(PAGE_SIZE.max).default(PAGE_SIZE.default),
    ).meta({ description: 'Maximum number of animals to return.', format: 'int32' }),
    status: PetStatus.optional().meta({ description: 'Filters animals by availability.' }),
    cursor: Cursor.optional(),
  })
  // A typed call may leave the whole query out: `listPets()` is the first page of 20.
  .prefault({});
export type ListPetsQuery = NonNullable<z.input<typeof ListPetsQuery>>;
export type ListPetsInput = z.output<typeof ListPetsQuery>;
