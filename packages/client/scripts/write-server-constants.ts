import { writeFileSync } from 'node:fs';
import { CONSTANTS_PATH, generateServerConstants } from './server-constants.js';

writeFileSync(CONSTANTS_PATH, generateServerConstants());
process.stdout.write('Wrote packages/client/src/generated/server-constants.ts\n');
