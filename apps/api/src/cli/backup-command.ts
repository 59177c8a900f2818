/**
 * How people run the backup CLI from a checkout: npm's `npx` runs the project's own pinned pnpm,
 * which finds apps/api's `backup` bin. Its usage text and the documentation quote this.
 */
export const BACKUP_COMMAND = 'npx pnpm backup';
