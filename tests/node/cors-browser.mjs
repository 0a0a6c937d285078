// Opens web pages in headless Debian Chromium, one after the other, and reports what each
// page's own script got when it called the service from its origin (tests/test_cors.py): the
// page sets `window.__report` to a promise of its results. Chromium enforces CORS as it does
// for anyone; its console messages (where it says why it blocked a response) are reported too.
// Nothing intercepts requests, so the preflights are Chromium's own.
//
// Usage: PAGES='["http://127.0.0.1:…/?service=…&token=…", …]' node cors-browser.mjs
//        → prints one JSON object: {pages: [{url, report, console, pageErrors}]}
import { launchChromium } from "./chromium.mjs";

const result = { pages: [] };

const browser = await launchChromium();
try {
  // One context: one preflight cache, as one browser profile has.
  const context = await browser.newContext();
  for (const url of JSON.parse(process.env.PAGES)) {
    const entry = { url, console: [], pageErrors: [] };
    const page = await context.newPage();
    page.on("console", (message) => entry.console.push(`${message.type()}: ${message.text()}`));
    page.on("pageerror", (error) => entry.pageErrors.push(String(error)));
    await page.goto(url, { waitUntil: "load" });
    entry.report = await page.evaluate(() => window.__report);
    result.pages.push(entry);
    await page.close();
  }
} catch (error) {
  result.failure = String(error?.stack || error);
} finally {
  await browser.close();
}
console.log(JSON.stringify(result));
