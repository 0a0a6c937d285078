// Headless Debian Chromium as the browser tests launch it (graphiql-browser.mjs,
// cors-browser.mjs): no sandbox (root in CI), no GPU, and nothing of its own on the network,
// so every request a test sees is the page's.
import { chromium } from "playwright-core";

export function launchChromium() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}
