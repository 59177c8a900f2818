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
    [200, 'info', 'request completed'],
    [499, 'info', 'request completed'],
    [503, 'warn', 'request refused for now'],
    [500, 'error', 'request failed'],
  ] as const)('reads exactly as pino would write it, for a %i', (status, level, msg) => {
    const ours = collected();
    const theirs = collected();
    createAccessLog(createLogger('info', ours.destination))('id-1', 'GET', '/v1/pets?name="quoted"\\\u2028', status, 3);
    const fields = { reqId: 'id-1', req: { method: 'GET', url: '/v1/pets?name="quoted"\\\u2028' }, res: { statusCode: status }, responseTime: 3 };
    const reference = pino({}, theirs.destination);
    reference[level](fields, msg);
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
    createAccessLog(createLogger('error', quiet.destination))('id-1', 'GET', '/v1/pets', 503, 1);
    expect(quiet.lines).toEqual([]);
    createAccessLog(createLogger('warn', quiet.destination))('id-1', 'GET', '/v1/pets', 503, 1);
    createAccessLog(createLogger('warn', quiet.destination))('id-1', 'GET', '/v1/pets', 500, 1);
    expect(quiet.lines).toHaveLength(2);
  });
});
