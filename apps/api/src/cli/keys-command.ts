/**
 * How people run the keys CLI from a checkout: npm's `npx` runs the project's own pinned pnpm,
 * which finds apps/api's `keys` bin. Usage text, the server's first-key banner and the README
 * all quote this.
 */
export const KEYS_COMMAND = 'npx pnpm keys';
