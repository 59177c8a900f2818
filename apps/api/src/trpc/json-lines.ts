import type { Chunk } from '../http/reply.js';

/** The media type of tRPC's JSON lines. */
export const JSON_LINES_TYPE = 'application/jsonl';

/** The request header with which httpBatchStreamLink asks for JSON lines. */
export const TRPC_ACCEPT = 'trpc-accept';

/**
 * tRPC's JSON lines, the answer httpBatchStreamLink reads (@trpc/server's jsonl stream, decoded by
 * its `jsonlStreamConsumer`): a head line with an entry per call, `[[answer]]` for a call answered
 * by then and `[[0],[null,0,i]]` (a promise, to come as chunk `i`) for one that is not; then a line
 * per call answered later, `[i,0,[[answer]]]`. tRPC's own producer nests a promise at each level of
 * an answer; its client resolves values and promises alike, so an answer that is ready needs none.
 */

const PROMISE = 0;
const FULFILLED = 0;

const pending = (index: number) => [[0], [null, PROMISE, index]];
const chunkLine = (index: number, answer: unknown) => `${JSON.stringify([index, FULFILLED, [[answer]]])}\n`;

/**
 * The body of a streamed batch whose calls answer with `answers`, each rendered by `render`: the
 * head once this turn of the event loop is over (a call answered by then is in it), then each
 * call's line as soon as it is answered, the lines of calls answered together in one piece. When
 * the reader stops asking, the calls still running are no longer waited for. A call that fails
 * instead of answering fails the body.
 */
export async function* jsonLines<T>(answers: readonly Promise<T>[], render: (answer: T) => unknown): AsyncGenerator<Chunk, void, undefined> {
  const rendered: unknown[] = [];
  const ready: number[] = [];
  // A call that failed instead of answering (the transports' calls never do): the body fails with it.
  const failures: unknown[] = [];
  let wake: (() => void) | undefined;
  for (const [index, answer] of answers.entries()) {
    answer.then(
      (value) => {
        rendered[index] = render(value);
        ready.push(index);
        wake?.();
      },
      (error: unknown) => {
        failures.push(error);
        wake?.();
      },
    );
  }
  // The calls start as promise reactions queued before this body runs (core's callOperation): one
  // hop lets them reach their storage first, so the turn's end is taken after a group they join
  // (SQLite's creates are written together at it), and the head carries their answers.
  await Promise.resolve();
  // The turn's end is waited for only while a call is still running, so that no answer is kept alive
  // longer than it takes to make (docs/decisions/2026-11-27-streamed-batches-not-held-for-the-turn.md).
  let turn: NodeJS.Immediate | undefined;
  await Promise.race([Promise.all(answers).catch(() => undefined), new Promise<void>((resolve) => (turn = setImmediate(resolve)))]);
  clearImmediate(turn);
  if (failures.length > 0) throw failures[0];

  const head: Record<string, unknown> = {};
  for (const [index] of answers.entries()) head[index] = rendered[index] === undefined ? pending(index) : [[rendered[index]]];
  let written = ready.length;
  ready.length = 0;
  // What is in the head is not held twice while the reader takes it.
  rendered.length = 0;
  yield { text: `${JSON.stringify(head)}\n`, last: written === answers.length };

  while (written < answers.length) {
    if (ready.length === 0 && failures.length === 0) await new Promise<void>((resolve) => (wake = resolve));
    wake = undefined;
    // The head went out: the reader ends the body with what it has.
    if (failures.length > 0) throw failures[0];
    const calls = ready.splice(0);
    const text = calls.map((index) => chunkLine(index, rendered[index])).join('');
    written += calls.length;
    for (const index of calls) rendered[index] = undefined;
    yield { text, last: written === answers.length, calls };
  }
}

/** The lines of a chunk's calls, each answered `refusal` instead (a chunk the process has no room to hold). */
export const refusedLines = (calls: readonly number[] | undefined, refusal: unknown): string =>
  (calls ?? []).map((index) => chunkLine(index, refusal)).join('');
