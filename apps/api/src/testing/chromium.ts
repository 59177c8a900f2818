import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { refuseWithout } from '@petstore/core/testing';
import { type Browser, chromium } from 'playwright-core';

const NAMES = ['chromium', 'chromium-browser', 'google-chrome'];

/** The system's Chromium (Debian's `chromium` package, installed by .ci/run), or CHROMIUM_PATH. */
const findChromium = (): string => {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  for (const folder of (process.env.PATH ?? '').split(delimiter)) {
    for (const name of NAMES) {
      try {
        accessSync(join(folder, name), constants.X_OK);
        return join(folder, name);
      } catch {
        // not in this folder
      }
    }
  }
  throw new Error('No Chromium found: install Debian\'s "chromium" package (.ci/run does) or set CHROMIUM_PATH.');
};

/** Headless, and quiet: no background requests to the outside that this machine would refuse. */
export const launchChromium = (): Promise<Browser> => {
  refuseWithout('Chromium');
  return chromium.launch({
    executablePath: findChromium(),
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
};
