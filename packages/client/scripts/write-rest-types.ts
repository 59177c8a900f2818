import { writeFileSync } from 'node:fs';
import { TYPES_PATH, generateRestTypes } from './rest-types.js';

writeFileSync(TYPES_PATH, await generateRestTypes());
process.stdout.write('Wrote packages/client/src/generated/openapi-types.ts\n');
