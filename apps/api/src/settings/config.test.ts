import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, SETTINGS, readConfig, settingsTable } from './config.js';

const fromRoot = (path: string) => readFileSync(new URL(`../../../../${path}`, import.meta.url), 'utf8');

describe('the settings, declared once', () => {
  it("are the operating page's Configuration table, row for row", () => {
    const page = fromRoot('docs/operating.md');
    const section = page.indexOf('\n## Configuration\n');
    expect(section, 'docs/operating.md has a Configuration section').toBeGreaterThan(-1);
    const lines = page.slice(section).split('\n');
    const start = lines.findIndex((line) => line.startsWith('|'));
    const end = lines.findIndex((line, index) => index > start && !line.startsWith('|'));
    expect(lines.slice(start, end).join('\n')).toBe(settingsTable());
  });

  it('are each passed through by turbo, so a setting reaches the process it configures', () => {
    const { globalPassThroughEnv } = JSON.parse(fromRoot('turbo.json')) as { globalPassThroughEnv: string[] };
    expect(globalPassThroughEnv).toEqual(expect.arrayContaining(Object.values(SETTINGS).map(({ variable }) => variable)));
  });

  it('give their defaults to an empty environment', () => {
    const config = readConfig({});
    expect(config).toMatchObject({ port: 3000, host: '127.0.0.1', rateLimitPerMinute: 600, trustProxy: [], trpcAllowMethodOverride: false, tracing: false });
    expect(config.databaseUrl).toBeUndefined();
  });

  it('take an empty variable as unset, and name every variable set wrong', () => {
    expect(readConfig({ PORT: '' }).port).toBe(3000);
    expect(readConfig({ TRPC_ALLOW_METHOD_OVERRIDE: 'true' }).trpcAllowMethodOverride).toBe(true);
    expect(() => readConfig({ PORT: 'http', API_KEY_CACHE_MS: '-1' })).toThrow(ConfigError);
    expect(() => readConfig({ PORT: 'http', API_KEY_CACHE_MS: '-1' })).toThrow(/PORT must be a port number.*API_KEY_CACHE_MS must be a whole number/);
  });
});
