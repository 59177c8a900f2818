import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TOKEN_PATTERN, issueToken, publicIdOf } from './api-key-token.js';

/** The regular expression the API keys page gives secret scanners. */
const documentedPattern = () => {
  const page = readFileSync(new URL('../../../../docs/api-keys.md', import.meta.url), 'utf8');
  const quoted = /offline, by\n\n```\n(.+)\n```/.exec(page)?.[1];
  if (quoted === undefined) throw new Error('docs/api-keys.md no longer quotes the scanners\' pattern');
  return new RegExp(quoted, 'g');
};

describe('API key tokens', () => {
  it('are found in text by the pattern documented for secret scanners, whole, and only they', () => {
    const tokens = Array.from({ length: 20 }, () => issueToken().token);
    const text = `export KEY=${tokens[0] ?? ''}\n${tokens.slice(1).join(' and ')} pst_short_abc pst_0123456789ab_${'a'.repeat(60)}`;
    expect(text.match(documentedPattern())).toEqual(tokens);
    for (const token of tokens) expect(token).toMatch(TOKEN_PATTERN);
  });

  it('carry a checksum that any one changed character breaks', () => {
    const { token, publicId } = issueToken();
    expect(publicIdOf(token)).toBe(publicId);
    for (let at = 'pst_'.length + 12 + 1; at < token.length; at++) {
      const changed = token.slice(0, at) + (token[at] === 'a' ? 'b' : 'a') + token.slice(at + 1);
      expect(publicIdOf(changed), changed).toBeUndefined();
    }
  });
});
