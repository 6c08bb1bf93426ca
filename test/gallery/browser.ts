/**
 * One headless Chromium per test file (Debian's /usr/bin/chromium driven by playwright-core; the
 * flags keep it off the network this machine does not have), one page reused by the file's steps.
 * Every console error and page error is collected: a step ends by asserting there were none, or only
 * the failed requests it expected (a 409 the page is meant to show, say).
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOTS_DIR = path.resolve(new URL('../../docs/screenshots/', import.meta.url).pathname);

export const PHONE = { width: 375, height: 812 };
export const DESKTOP = { width: 1280, height: 900 };

export interface BrowserSession {
  browser: Browser;
  page: Page;
  /** console errors and page errors since the last call, emptied by it */
  takeErrors(): string[];
  close(): Promise<void>;
}

export async function openBrowser(baseURL: string): Promise<BrowserSession> {
  // playwright gives every launch a fresh, empty user-data-dir of its own.
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
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
  const context = await browser.newContext({ baseURL, viewport: DESKTOP, colorScheme: 'light' });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  let errors: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(`console: ${msg.text()}`);
  });
  page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
  return {
    browser,
    page,
    takeErrors() {
      const taken = errors;
      errors = [];
      return taken;
    },
    close: () => browser.close(),
  };
}

/** Waits until the gallery's script has drawn the page (it sets body[data-ready]). */
export async function ready(page: Page): Promise<void> {
  await page.waitForSelector('body[data-ready="1"]');
}

/**
 * Whether `locator` becomes visible within a few seconds. The account and post pages draw some
 * controls after a request settles, so an instant `isVisible()` races the page; this waits, and
 * answers false (failing the assertion) only when the element never appears.
 */
export async function shows(locator: Locator, timeout = 10_000): Promise<boolean> {
  return locator.waitFor({ state: 'visible', timeout }).then(
    () => true,
    () => false,
  );
}

/**
 * `<name>-phone.png` and `<name>-desktop.png` into docs/screenshots, after the page's pending
 * requests and images have settled; fails when the page is wider than the viewport. The viewport is
 * back at desktop width afterwards.
 */
export async function screenshots(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOTS_DIR, { recursive: true });
  for (const [label, size] of [
    ['phone', PHONE],
    ['desktop', DESKTOP],
  ] as const) {
    await page.setViewportSize(size);
    await page.waitForLoadState('networkidle');
    // The layout fits: nothing makes the page scroll sideways.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    if (overflow > 0) throw new Error(`${name} is ${overflow} px wider than the ${size.width} px viewport`);
    // Every image in view finished (lazy ones below the fold may stay unloaded).
    await page.waitForFunction(() =>
      [...document.images].every((img) => img.complete || img.getBoundingClientRect().top > window.innerHeight),
    );
    await page.screenshot({ path: path.join(SCREENSHOTS_DIR, `${name}-${label}.png`), fullPage: true });
  }
  await page.setViewportSize(DESKTOP);
}
