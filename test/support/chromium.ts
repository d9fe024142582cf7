import { type Browser, chromium } from 'playwright-core';

/**
 * Debian's Chromium (installed by `.ci/run` with apt-get when missing), headless, for the
 * tests that need a real browser; `CHROMIUM_PATH` points elsewhere.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    timeout: 30_000,
  });
}
