import { z } from 'zod';

/** The REST response headers, as the OpenAPI document describes them. */
export const LocationHeader = z.string().meta({
  description: 'Address of the animal just added.',
  examples: ['/v1/pets/1'],
});

export const NextPageLinkHeader = z.string().meta({
  description:
    'RFC 8288 link to the next page (`rel="next"`): same `limit` and `status`, plus a `cursor`. ' +
    'Absent on the last page.',
  examples: ['</v1/pets?limit=20&cursor=YWZ0ZXI6MjA>; rel="next"'],
});

export const DeprecationHeader = z.string().meta({
  description: 'RFC 9745: when the operation was deprecated, as `@<epoch seconds>`.',
  examples: ['@1795305600'],
});

export const SunsetHeader = z.string().meta({
  description: 'RFC 8594: when the operation will be removed.',
  examples: ['Thu, 05 Dec 2030 00:00:00 GMT'],
});

export const SuccessorLinkHeader = z.string().meta({
  description: 'RFC 8288 link to the operation that replaces this one (`rel="successor-version"`).',
  examples: ['</v1/pets>; rel="successor-version"'],
});

export const IdempotentReplayedHeader = z.literal('true').meta({
  description: 'Present when this is the response to an earlier request with the same Idempotency-Key.',
});
