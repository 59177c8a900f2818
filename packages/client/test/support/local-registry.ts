import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { createReadStream, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** What `npm pack --json` says of each tarball it wrote. */
interface Packed {
  name: string;
  version: string;
  filename: string;
  integrity: string;
  shasum: string;
}

export interface LocalRegistry {
  /** The address to give npm as its registry (`npm_config_registry`). */
  url: string;
  close(): Promise<void>;
}

/** Compares two plain `major.minor.patch` versions, as the registry's `latest` tag is the highest. */
const byVersion = (a: string, b: string) => {
  const [x, y] = [a, b].map((version) => version.split('.').map(Number));
  for (let part = 0; part < 3; part += 1) {
    const difference = (x?.[part] ?? 0) - (y?.[part] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
};

/**
 * A stand-in for the npm registry on 127.0.0.1 that holds only the packages in `folders`, packed
 * with npm into `destination`: an app's plain `npm install` resolves names, ranges and peers
 * against it as it would against the registry, and needs no network. A name it does not hold is
 * a 404, so an install that reaches for more than it was given fails.
 */
export const startLocalRegistry = async (folders: string[], destination: string): Promise<LocalRegistry> => {
  const { stdout } = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', destination, ...folders], { cwd: destination });
  const packed = JSON.parse(stdout) as Packed[];
  const manifests = new Map(
    folders.map((folder) => {
      const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { name: string; version: string };
      return [`${manifest.name}@${manifest.version}`, manifest];
    }),
  );
  const tarballs = new Map(packed.map((tarball) => [tarball.filename, join(destination, tarball.filename)]));

  const server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://registry').pathname);
    const tarball = path.startsWith('/-/') ? tarballs.get(path.slice('/-/'.length)) : undefined;
    if (tarball !== undefined) {
      response.writeHead(200, { 'Content-Type': 'application/octet-stream' });
      createReadStream(tarball).pipe(response);
      return;
    }
    const name = path.slice(1);
    const versions = packed.filter((tarball) => tarball.name === name);
    if (versions.length === 0) {
      response.writeHead(404, { 'Content-Type': 'application/json' }).end('{"error":"Not found"}');
      return;
    }
    const base = `http://${request.headers.host ?? ''}/-/`;
    const latest = versions.map((tarball) => tarball.version).sort(byVersion).at(-1);
    const packument = {
      name,
      'dist-tags': { latest },
      versions: Object.fromEntries(
        versions.map((tarball) => [
          tarball.version,
          { ...manifests.get(`${name}@${tarball.version}`), dist: { tarball: base + tarball.filename, integrity: tarball.integrity, shasum: tarball.shasum } },
        ]),
      ),
    };
    response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(packument));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the registry has no port');
  return {
    url: `http://127.0.0.1:${String(address.port)}/`,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
};
