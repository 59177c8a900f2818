import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { crc32 } from './crc32.js';

/** zlib's own CRC-32 of `text`: a gzip member ends with it, little-endian, before the length. */
const zlibCrc32 = (text: string) => {
  const member = gzipSync(Buffer.from(text, 'utf8'));
  return member.readUInt32LE(member.length - 8);
};

describe('crc32', () => {
  it('gives the standard check value', () => {
    expect(crc32('123456789')).toBe(0xcbf43926);
    expect(crc32('')).toBe(0);
  });

  it('agrees with zlib on any text', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (text) => crc32(text) === zlibCrc32(text)));
  });
});
