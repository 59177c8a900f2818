import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../settings/logger.js';
import { createAccessLog } from './access-line.js';

const collected = () => {
  const lines: string[] = [];
  return { lines, destination: { write: (line: string) => lines.push(line) } };
};

describe('the access log line', () => {
  it.each([
    [200, 'request completed'],
    [503, 'request failed'],
  ])('reads exactly as pino would write it, for a %i', (status, msg) => {
    const ours = collected();
    const theirs = collected();
    createAccessLog(createLogger('info', ours.destination))('id-1', 'GET', '/v1/pets?name="quoted"\\\u2028', status, 3);
    const fields = { reqId: 'id-1', req: { method: 'GET', url: '/v1/pets?name="quoted"\\\u2028' }, res: { statusCode: status }, responseTime: 3 };
    const reference = pino({}, theirs.destination);
    if (status >= 500) reference.error(fields, msg);
    else reference.info(fields, msg);
    const [line] = ours.lines;
    expect(line?.endsWith('\n')).toBe(true);
    const parse = (text: string | undefined) => ({ ...(JSON.parse(text ?? '') as Record<string, unknown>), time: 0 });
    expect(parse(line)).toEqual(parse(theirs.lines[0]));
    expect(Object.keys(parse(line))).toEqual(Object.keys(parse(theirs.lines[0])));
  });

  it('writes nothing below the logger level', () => {
    const quiet = collected();
    createAccessLog(createLogger('warn', quiet.destination))('id-1', 'GET', '/v1/pets', 200, 1);
    expect(quiet.lines).toEqual([]);
    createAccessLog(createLogger('warn', quiet.destination))('id-1', 'GET', '/v1/pets', 500, 1);
    expect(quiet.lines).toHaveLength(1);
  });
});
