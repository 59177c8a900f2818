import { Worker } from 'node:worker_threads';

/**
 * The files of the service whose code a piece of work runs, in the order it runs them: every
 * statement of the service's own files that runs is a breakpoint, set by a worker thread that
 * debugs this one (`inspector.Session.connectToMainThread`, statement-trail-worker.ts), records
 * where it paused and lets it go on. Library code has no breakpoint, so a call into a library and back counts as staying put;
 * a call into another file of the service, its return, and an `await` resumed after another file
 * ran each show as a change of file.
 */

export interface StatementTrail {
  /**
   * The files each piece of work ran, in order, a file's statements in a row counted once; and
   * how many calls of the service's functions it made.
   */
  follow(work: () => Promise<unknown>): Promise<{ trail: string[]; calls: number }>;
  close(): Promise<void>;
}

/** Starts following the scripts whose URL matches `pattern`, once they are all loaded. */
export const startStatementTrail = async (pattern: RegExp): Promise<StatementTrail> => {
  const worker = new Worker(new URL('./statement-trail-worker.ts', import.meta.url), { workerData: { pattern: pattern.source } });
  const answer = <T>() => new Promise<T>((resolve) => worker.once('message', resolve));
  await answer();
  worker.postMessage('arm');
  await answer();
  return {
    follow: async (work) => {
      await work();
      worker.postMessage('take');
      const { trail, calls } = await answer<{ trail: string[]; calls: number }>();
      return { trail: trail.filter((file, index) => index === 0 || trail[index - 1] !== file), calls };
    },
    close: async () => {
      worker.postMessage('disarm');
      await answer();
      await worker.terminate();
    },
  };
};

/** How many times each file was entered: the stretches of the trail it holds. */
export const entriesByFile = (trail: readonly string[]): Map<string, number> => {
  const entries = new Map<string, number>();
  for (const file of trail) entries.set(file, (entries.get(file) ?? 0) + 1);
  return entries;
};
