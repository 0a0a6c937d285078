// One headless Chromium for a whole test module (tests/test_explorer_browser.py): started once,
// its endpoint printed as one JSON line, and kept until standard input closes. Each scenario's
// script connects to it (BROWSER_WS, chromium.mjs) with contexts of its own, so a module pays
// for one browser's start, not one per test.
//
// Usage: node chromium-server.mjs   → {"wsEndpoint": "ws://127.0.0.1:…"}; close stdin to stop
import { chromium } from "playwright-core";
import { CHROMIUM_OPTIONS } from "./chromium.mjs";

const server = await chromium.launchServer({ ...CHROMIUM_OPTIONS, host: "127.0.0.1" });
console.log(JSON.stringify({ wsEndpoint: server.wsEndpoint() }));
process.stdin.resume();
process.stdin.on("end", async () => {
  await server.close();
  process.exit(0);
});
