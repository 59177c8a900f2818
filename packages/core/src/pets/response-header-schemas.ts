import { z } from 'zod';
import { MAX_CURSOR_LENGTH } from './list/cursor.js';
import { MAX_SAFE_ID } from './integer-param.js';
import { PAGE_SIZE } from './list/page-size.js';
import { PET_STATUSES } from './pet.js';

// The REST interface serves the animals here (the contract fixes it); the bounds below are the
// longest values the service can send.
const PETS_ADDRESS = '/v1/pets';
const LONGEST_STATUS = PET_STATUSES.reduce((longest, status) => (status.length > longest.length ? status : longest));
const LONGEST_NEXT_PAGE_LINK =
  `<${PETS_ADDRESS}?limit=${PAGE_SIZE.max}&status=${LONGEST_STATUS}&cursor=${'A'.repeat(MAX_CURSOR_LENGTH)}>; rel="next"`;
/** RFC 9651: an sf-integer has at most 15 digits; an sf-date is `@` and one. */
const LONGEST_SF_DATE = `@-${'9'.repeat(15)}`;
/** RFC 9110's IMF-fixdate, the one form of HTTP date a server sends. */
const IMF_FIXDATE =
  '^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), [0-9]{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2} GMT$';

/** The REST response headers, as the OpenAPI document describes them. */
export const LocationHeader = z.string().meta({
  description: 'Address of the animal just added.',
  examples: ['/v1/pets/1'],
  pattern: `^${PETS_ADDRESS}/[1-9][0-9]*$`,
  maxLength: `${PETS_ADDRESS}/${MAX_SAFE_ID}`.length,
});

export const NextPageLinkHeader = z.string().meta({
  description:
    'RFC 8288 link to the next page (`rel="next"`): same `limit` and `status`, plus a `cursor`. ' +
    'Absent on the last page.',
  examples: ['</v1/pets?limit=20&cursor=YWZ0ZXI6MjA>; rel="next"'],
  pattern: '^<[^>]+>; rel="next"$',
  maxLength: LONGEST_NEXT_PAGE_LINK.length,
});

export const DeprecationHeader = z.string().meta({
  description: 'RFC 9745: when the operation was deprecated, as `@<epoch seconds>`.',
  examples: ['@1795305600'],
  pattern: '^@-?[0-9]{1,15}$',
  maxLength: LONGEST_SF_DATE.length,
});

export const SunsetHeader = z.string().meta({
  description: 'RFC 8594: when the operation will be removed.',
  examples: ['Thu, 05 Dec 2030 00:00:00 GMT'],
  pattern: IMF_FIXDATE,
  maxLength: 'Thu, 05 Dec 2030 00:00:00 GMT'.length,
});

export const SuccessorLinkHeader = z.string().meta({
  description: 'RFC 8288 link to the operation that replaces this one (`rel="successor-version"`).',
  examples: ['</v1/pets>; rel="successor-version"'],
  pattern: '^<[^>]+>; rel="successor-version"$',
  // The one successor there is: `listPets`, for the deprecated `getPet`.
  maxLength: `<${PETS_ADDRESS}>; rel="successor-version"`.length,
});

export const IdempotentReplayedHeader = z.literal('true').meta({
  description: 'Present when this is the response to an earlier request with the same Idempotency-Key.',
});
