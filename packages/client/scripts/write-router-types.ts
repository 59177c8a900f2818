import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { TYPES_PATH, generateRouterTypes } from './router-types.js';

mkdirSync(dirname(TYPES_PATH), { recursive: true });
writeFileSync(TYPES_PATH, generateRouterTypes());
process.stdout.write('Wrote packages/client/src/generated/router-types.ts\n');
