import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');

/**
 * A full garbage collection, now: what any busy process does at a moment nobody chooses, made to
 * happen where a test needs it (V8's own `gc`, exposed for this process).
 */
export const collectGarbage = runInNewContext('gc') as () => void;
