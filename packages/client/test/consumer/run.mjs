import { run } from './dist/consumer.js';

const [url, apiKey] = process.argv.slice(2);
process.stdout.write(JSON.stringify(await run(url, apiKey)));
