// What both CPU harnesses share: their command line, asking a server for its CPU time, and sending
// its request over keep-alive connections. A server speaks over IPC: `{ port, request }` once it
// listens, and its `process.cpuUsage()` in answer to any message.
import { Agent, request } from 'node:http';

/** `<server.mjs> <variant> <variant>...` from the command line, or the usage and exit code 2. */
export const serverAndVariants = (harness) => {
  const [serverModule, ...variants] = process.argv.slice(2);
  if (serverModule === undefined || variants.length === 0) {
    console.error(`usage: node ${harness} <server.mjs> <variant> <variant>...`);
    process.exit(2);
  }
  return { serverModule, variants };
};

/** The server's CPU time so far, user and system, in µs. */
export const cpuOf = (server) =>
  new Promise((resolve) => {
    server.child.once('message', (usage) => {
      resolve(usage.user + usage.system);
    });
    server.child.send('cpu');
  });

/**
 * Sends the server's request on `connections` keep-alive connections, each again as soon as it is
 * answered, while `going()` says so; `onAnswer` is told of each answer. Fails on any other status.
 */
export const load = async (server, connections, going, onAnswer) => {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const { method, path, headers, body, status } = server.request;
  const once = () =>
    new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: server.port, method, path, headers, agent }, (res) => {
        res.resume();
        res.once('end', () => {
          if (res.statusCode !== status) reject(new Error(`${server.variant}: ${String(res.statusCode)}, not ${String(status)}`));
          else resolve();
        });
      });
      req.once('error', reject);
      req.end(body);
    });
  const connection = async () => {
    while (going()) {
      await once();
      onAnswer();
    }
  };
  try {
    await Promise.all(Array.from({ length: connections }, connection));
  } finally {
    agent.destroy();
  }
};
