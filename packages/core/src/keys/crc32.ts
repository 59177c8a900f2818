/**
 * CRC-32 (IEEE 802.3, the one zlib, gzip and GitHub's token checksums use), table-driven. Node 20
 * has no `zlib.crc32` (it came in 22.2), and the few lines here cost less than a dependency for
 * one function; `crc32.test.ts` checks it against the CRC zlib itself writes into gzip trailers.
 */
const TABLE = Uint32Array.from({ length: 256 }, (_, byte) => {
  let crc = byte;
  for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? 0xedb88320 ^ (crc >>> 1) : crc >>> 1;
  return crc;
});

export const crc32 = (text: string): number => {
  let crc = 0xffffffff;
  for (const byte of Buffer.from(text, 'utf8')) crc = (TABLE[(crc ^ byte) & 0xff] ?? 0) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
};
