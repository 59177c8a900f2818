import { fileURLToPath } from 'node:url';

/** The repository's root folder, whose README and pages these tests read and paste. */
export const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));
