// The worker of statement-trail.ts, run by Node as it is (types stripped): it debugs the main
// thread, with a breakpoint on every statement of the scripts that match, and records in which
// file each pause was.
import { Session } from 'node:inspector';
import { parentPort, workerData } from 'node:worker_threads';

const keepAlive = setInterval(() => undefined, 1000);
const session = new Session();
session.connectToMainThread();
const post = <T>(method: string, params: object = {}) =>
  new Promise<T>((resolve, reject) => {
    session.post(method, params, (error, result) => {
      if (error) reject(error);
      else resolve(result as T);
    });
  });

const port = parentPort;
if (!port) throw new Error('statement-trail-worker.ts runs as a worker');
const wanted = new RegExp((workerData as { pattern: string }).pattern);
const scripts = new Map<string, string>();
/** Each script's lines, to tell the module runner's own code in it from the service's. */
const sources = new Map<string, string[]>();
let trail: string[] = [];

interface FunctionCoverage {
  ranges: { startOffset: number; count: number }[];
}
interface ScriptCoverage {
  scriptId: string;
  functions: FunctionCoverage[];
}

/** The calls of the service's own functions since the last count (V8's call counts), the runner's getters left out. */
const callsSinceLastCount = async () => {
  const { result } = await post<{ result: ScriptCoverage[] }>('Profiler.takePreciseCoverage');
  let calls = 0;
  for (const { scriptId, functions } of result) {
    const source = sources.get(scriptId);
    if (!source) continue;
    const text = source.join('\n');
    for (const { ranges } of functions) {
      const [range] = ranges;
      if (!range || range.count === 0 || range.startOffset === 0) continue;
      if (/__vite_ssr_exportName__|__vi_ssr_/.test(text.slice(Math.max(0, text.lastIndexOf('\n', range.startOffset)), range.startOffset + 80))) continue;
      calls += range.count;
    }
  }
  return calls;
};

/**
 * vitest's module runner reads an imported binding through a function it adds to the exporting
 * module (`__vite_ssr_exportName__("name", () => { try { return name } catch {} })`): running it is
 * not running the service's code.
 */
const isRunnersExport = (scriptId: string, lineNumber: number) => /__vite_ssr_exportName__|__vi_ssr_/.test(sources.get(scriptId)?.[lineNumber] ?? '');

session.on('Debugger.scriptParsed', ({ params }) => {
  if (wanted.test(params.url)) scripts.set(params.scriptId, params.url);
});
session.on('Debugger.paused', ({ params }) => {
  const location = params.callFrames[0]?.location;
  if (location && !isRunnersExport(location.scriptId, location.lineNumber)) trail.push(scripts.get(location.scriptId) ?? '?');
  session.post('Debugger.resume');
});

const breakpoints: string[] = [];
const answer = async (message: 'arm' | 'take' | 'disarm') => {
  if (message === 'arm') {
    for (const scriptId of scripts.keys()) {
      sources.set(scriptId, (await post<{ scriptSource: string }>('Debugger.getScriptSource', { scriptId })).scriptSource.split('\n'));
      const { locations } = await post<{ locations: object[] }>('Debugger.getPossibleBreakpoints', { start: { scriptId, lineNumber: 0, columnNumber: 0 } });
      for (const location of locations) breakpoints.push((await post<{ breakpointId: string }>('Debugger.setBreakpoint', { location })).breakpointId);
    }
    await post('Profiler.enable');
    await post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
    await callsSinceLastCount();
    trail = [];
  } else if (message === 'take') {
    port.postMessage({ trail, calls: await callsSinceLastCount() });
    trail = [];
    return;
  } else {
    for (const breakpointId of breakpoints.splice(0)) await post('Debugger.removeBreakpoint', { breakpointId });
    await post('Profiler.stopPreciseCoverage');
    clearInterval(keepAlive);
    session.disconnect();
  }
  port.postMessage('ok');
};
port.on('message', (message: 'arm' | 'take' | 'disarm') => void answer(message));
void post('Debugger.enable').then(() => {
  port.postMessage('ok');
});
