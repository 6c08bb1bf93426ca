/**
 * One headless Chromium per test file (Debian's /usr/bin/chromium driven by playwright-core; the
 * flags keep it off the network this machine does not have), one page reused by the file's steps.
 * Every console error and page error is collected: a step ends by asserting there were none, or only
 * the failed requests it expected (a 409 the page is meant to show, say).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { TestFn } from 'ava';
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

/**
 * The hooks of a file that shares one browser across its steps: each step starts with no errors
 * collected (its own are what it asserts on), and the browser, then the app, close after the last.
 */
export function browserHooks<C extends { session: BrowserSession; app: { close(): Promise<void> } }>(
  test: TestFn<C>,
): void {
  test.beforeEach((t) => {
    t.context.session.takeErrors();
  });
  test.after.always(async (t) => {
    await t.context.session?.close();
    await t.context.app?.close();
  });
}

/**
 * Logs in on /login with the keyboard alone (the name field has focus: name, Tab, password, Enter)
 * and waits for the account's link in the navigation.
 */
export async function logInByKeyboard(page: Page, name: string, password: string): Promise<void> {
  await page.goto('/login');
  await ready(page);
  await page.keyboard.type(name);
  await page.keyboard.press('Tab');
  await page.keyboard.type(password);
  await page.keyboard.press('Enter');
  await page.waitForURL((url) => url.pathname === '/');
  await page.locator('#nav-account a', { hasText: name }).waitFor();
}

/** Logs in on /login by filling the labelled fields and pressing the button, and waits for the home page drawn. */
export async function logInByForm(page: Page, name: string, password: string): Promise<void> {
  await page.goto('/login');
  await ready(page);
  await page.getByLabel('Username').fill(name);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Log in', exact: true }).click();
  await page.waitForURL((url) => url.pathname === '/');
  await ready(page);
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
