import { Session } from 'node:inspector/promises';

/**
 * How many times a piece of work calls the functions of the scripts whose URL matches a pattern:
 * V8's precise coverage with call counts, taken in this process through the inspector. A count of
 * calls, not of files, so it does not change when a function moves to a file of its own.
 */

export interface CallCount {
  /** The calls `work` made, in all and by `file:function`. */
  count(work: () => Promise<unknown>): Promise<{ calls: number; byFunction: Map<string, number> }>;
  close(): Promise<void>;
}

interface FunctionCoverage {
  functionName: string;
  ranges: { startOffset: number; count: number }[];
}
interface ScriptCoverage {
  scriptId: string;
  url: string;
  functions: FunctionCoverage[];
}

/**
 * vitest's module runner reads an imported binding through a function it adds to the exporting
 * module (`__vite_ssr_exportName__("name", () => { try { return name } catch {} })`): running it is
 * not running the service's code.
 */
const RUNNERS_OWN = /__vite_ssr_exportName__|__vi_ssr_/;

/** Starts counting the calls of the scripts whose URL matches `pattern`. */
export const startCallCount = async (pattern: RegExp): Promise<CallCount> => {
  const session = new Session();
  session.connect();
  await session.post('Debugger.enable');
  await session.post('Profiler.enable');
  await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
  const sources = new Map<string, string>();
  const sourceOf = async (scriptId: string) => {
    let source = sources.get(scriptId);
    if (source === undefined) {
      source = (await session.post('Debugger.getScriptSource', { scriptId })).scriptSource;
      sources.set(scriptId, source);
    }
    return source;
  };
  /** The calls since the last take: V8 resets its counts on each. */
  const take = async () => {
    const { result } = (await session.post('Profiler.takePreciseCoverage')) as { result: ScriptCoverage[] };
    const byFunction = new Map<string, number>();
    let calls = 0;
    for (const { scriptId, url, functions } of result) {
      if (!pattern.test(url)) continue;
      for (const { functionName, ranges } of functions) {
        const [range] = ranges;
        // The module's own body (offset 0) runs once, when it is imported.
        if (!range || range.count === 0 || range.startOffset === 0) continue;
        const source = await sourceOf(scriptId);
        if (RUNNERS_OWN.test(source.slice(Math.max(0, source.lastIndexOf('\n', range.startOffset)), range.startOffset + 80))) continue;
        const name = `${url}:${functionName || `@${range.startOffset}`}`;
        byFunction.set(name, (byFunction.get(name) ?? 0) + range.count);
        calls += range.count;
      }
    }
    return { calls, byFunction };
  };
  await take();
  return {
    count: async (work) => {
      await take();
      await work();
      return take();
    },
    close: async () => {
      await session.post('Profiler.stopPreciseCoverage');
      await session.post('Profiler.disable');
      await session.post('Debugger.disable');
      session.disconnect();
    },
  };
};
