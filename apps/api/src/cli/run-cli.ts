import { relative } from 'node:path';

/**
 * The command as its user typed it, for its usage text: what the checkout's bin says it was run as
 * (`PETSTORE_COMMAND`, such as `npx pnpm keys`), otherwise the built file run by node from the
 * folder it was run in (`node dist/cli/keys.js` in the image).
 */
export const commandAsRun = (): string => process.env.PETSTORE_COMMAND ?? `node ${relative(process.cwd(), process.argv[1] ?? '')}`;

/** A command line that asks for nothing a CLI does; its message is one line saying why. */
export class UsageError extends Error {}

/** parseArgs explains itself over several sentences and lines; its first sentence says it. */
export const usageErrorFrom = (error: unknown): UsageError => {
  const message = error instanceof Error ? error.message : String(error);
  const sentence = /^[^\n]*?\.(?= |$)/m.exec(message)?.[0] ?? message.split('\n')[0] ?? message;
  return new UsageError(sentence.endsWith('.') ? sentence : `${sentence}.`);
};

/**
 * Runs a CLI's `main` and ends as its users script it: what it printed on stdout; a usage error
 * on stderr with the usage, exit code 2; an error the CLI knows (`known`) as its message alone,
 * anything else as it is, exit code 1 unless the CLI set its own.
 */
export const runCli = (main: () => Promise<string>, usage: string, known: (error: unknown) => error is Error): void => {
  main().then(
    (text) => {
      process.stdout.write(`${text}\n`);
    },
    (error: unknown) => {
      if (error instanceof UsageError) {
        process.stderr.write(`${error.message}\n\n${usage}\n`);
        process.exitCode = 2;
        return;
      }
      process.stderr.write(`${known(error) ? error.message : String(error)}\n`);
      process.exitCode ??= 1;
    },
  );
};
