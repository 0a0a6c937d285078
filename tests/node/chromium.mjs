// Headless Debian Chromium as the browser tests launch it (graphiql-browser.mjs,
// cors-browser.mjs): no sandbox (root in CI), no GPU, and nothing of its own on the network,
// so every request a test sees is the page's. A test module that drives several scenarios
// starts one browser for all of them (chromium-server.mjs) and names it in BROWSER_WS; each
// scenario then connects to it instead of launching its own.
import { chromium } from "playwright-core";

export const CHROMIUM_OPTIONS = {
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
};

export function launchChromium() {
  if (process.env.BROWSER_WS) return chromium.connect(process.env.BROWSER_WS);
  return chromium.launch(CHROMIUM_OPTIONS);
}
