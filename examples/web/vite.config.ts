import react from '@vitejs/plugin-react';
import { defaultClientConditions, defineConfig } from 'vite';

export default defineConfig({
  plugins: [react()],
  // The workspace's client from its TypeScript sources (as the tests read it), so that `dev` needs no build first.
  resolve: { conditions: ['petstore-source', ...defaultClientConditions] },
  server: { host: '127.0.0.1', port: 5173 },
  preview: { host: '127.0.0.1', port: 4173 },
});
