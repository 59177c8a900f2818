import react from '@vitejs/plugin-react';
import { defaultClientConditions, defineConfig } from 'vite';

/** Where `npx pnpm dev` serves the app; the service it starts beside allows this origin (the root's `dev` script). */
export const DEV_ORIGIN = 'http://127.0.0.1:5173';

export default defineConfig({
  plugins: [react()],
  resolve: {
    // The workspace's client from its TypeScript sources (as the tests read it), so that `dev` needs no build first.
    conditions: ['petstore-source', ...defaultClientConditions],
    // tRPC is the app's, one copy of one version, as an app that installs the client has it (the
    // client's peers): the client's sources, read from the workspace, import the app's.
    dedupe: ['@trpc/client', '@trpc/server'],
  },
  // Another port would be another origin, which the service does not allow: fail rather than move.
  server: { host: '127.0.0.1', port: Number(new URL(DEV_ORIGIN).port), strictPort: true },
  preview: { host: '127.0.0.1', port: 4173 },
});
