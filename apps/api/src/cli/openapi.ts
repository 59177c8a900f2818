import { writeFileSync } from 'node:fs';
import { COMMITTED_DOCUMENT_PATH, canonicalDocument } from '../openapi/committed-document.js';

writeFileSync(COMMITTED_DOCUMENT_PATH, canonicalDocument());
process.stdout.write('Wrote openapi.json\n');
