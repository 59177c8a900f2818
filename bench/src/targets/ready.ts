/** How a target tells the bench it listens: one line on stdout, read by target-process.ts. */
export const announceReady = (port: number) => {
  process.stdout.write(`READY ${port}\n`);
};

export const databaseFile = (): string => {
  const file = process.env.PETSTORE_DB;
  if (!file) throw new Error('PETSTORE_DB is not set');
  return file;
};
