import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { expect, it } from 'vitest';
import { coresOf, onOneCore } from '../src/one-core.js';

it("runs a pair on one core and the load on another, then gives each process back the cores it had", async () => {
  const served = [0, 1].map(() => spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' }));
  try {
    const pids = served.map((child) => child.pid ?? Number.NaN);
    const before = [process.pid, ...pids].map(coresOf);
    const during = await onOneCore(pids, () => Promise.resolve([process.pid, ...pids].map(coresOf)));
    const [load, ...pair] = during;
    expect(pair).toEqual([pair[0], pair[0]]);
    expect(pair[0]).toMatch(/^\d+$/);
    expect(load).toMatch(/^\d+$/);
    expect(load).not.toBe(pair[0]);
    expect([process.pid, ...pids].map(coresOf)).toEqual(before);
  } finally {
    for (const child of served) {
      child.kill();
      await once(child, 'exit');
    }
  }
});

it('gives the cores back when the work fails', async () => {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  try {
    const pid = child.pid ?? Number.NaN;
    const before = [process.pid, pid].map(coresOf);
    await expect(onOneCore([pid], () => Promise.reject(new Error('the load failed')))).rejects.toThrow('the load failed');
    expect([process.pid, pid].map(coresOf)).toEqual(before);
  } finally {
    child.kill();
    await once(child, 'exit');
  }
});
