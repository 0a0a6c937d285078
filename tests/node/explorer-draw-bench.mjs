// Benchmark, not a test: how long the explorer takes to draw a 500-node walk and to answer a
// click on it, for one or more builds of explorer/dist, taken in turns so that every build is
// measured in the same minutes of a shared machine (docs/explorer.md, "Figures").
//
// No service and no database: the page's files are read from each DIST folder and its two
// GraphQL requests are answered with a synthetic walk shaped like the browser test's (a hub and
// 499 relations, odd ones ASSERTION with one passage, even ones PATH), so what is timed is the
// page alone.
//
// Usage: DISTS=/path/a/dist,/path/b/dist ROUNDS=5 node explorer-draw-bench.mjs
//        → one JSON object: per build, each round's drawMs, first-frame ms and click ms
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { launchChromium } from "./chromium.mjs";
import { clickToPanelMs } from "./walk-clicks.mjs";

const dists = (process.env.DISTS ?? "").split(",").filter(Boolean);
const rounds = Number(process.env.ROUNDS ?? 5);
const BASE = "http://127.0.0.1:9";
const HUB = "00000000-0000-4000-8000-000000000000";

function uuid(n) {
  return `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
}

function walkAnswer() {
  const document = { id: uuid(9999), title: "Relay network", workspace: "acme" };
  const nodes = [{ id: HUB, name: "Hub", labels: ["Thing"], description: "The relay hub.", evidence: [] }];
  const edges = [];
  for (let i = 0; i < 499; i++) {
    const id = uuid(i + 1);
    const name = `Station ${String(i).padStart(3, "0")}`;
    nodes.push({ id, name, labels: [i % 3 ? "Thing" : "Place"], description: null, evidence: [{ id: uuid(20000 + i) }] });
    const assertion = i % 2 === 1;
    edges.push({
      id: uuid(10000 + i),
      type: assertion ? "RELAYS" : "LINKED",
      kind: assertion ? "ASSERTION" : "PATH",
      depth: 1,
      description: assertion ? `The hub relays ${name}.` : null,
      weight: i % 10,
      source: { id: HUB },
      target: { id },
      evidence: assertion
        ? [{ id: uuid(20000 + i), text: `${name} reports to the hub.`, position: i + 1, document }]
        : [],
    });
  }
  return { data: { walk: { start: nodes[0], nodes, edges, truncatedBy: [] } } };
}

const WALK = JSON.stringify(walkAnswer());
const CHOICES = JSON.stringify({
  data: {
    entityLabels: ["Place", "Thing"].map((label) => ({ label, fulltextIndex: "ONLINE", vectorIndex: "ONLINE" })),
    grantedWorkspaces: ["acme"],
  },
});
const POLICY = "default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self'";

async function measure(browser, dist) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  await context.route("**/*", (route) => {
    const url = new URL(route.request().url());
    if (url.pathname === "/graphql") {
      const operation = route.request().postDataJSON()?.operationName;
      const body = operation === "ExplorerWalk" ? WALK : CHOICES;
      return route.fulfill({ status: 200, contentType: "application/json", body });
    }
    if (url.pathname === "/explore") {
      const page = readFileSync(join(dist, "index.html"));
      return route.fulfill({ status: 200, contentType: "text/html", headers: { "content-security-policy": POLICY }, body: page });
    }
    if (url.pathname.startsWith("/explore/assets/")) {
      const name = url.pathname.slice("/explore/assets/".length);
      const type = name.endsWith(".js") ? "text/javascript" : "text/css";
      return route.fulfill({ status: 200, contentType: type, body: readFileSync(join(dist, "assets", name)) });
    }
    return route.abort();
  });
  const page = await context.newPage();
  page.setDefaultTimeout(120000);
  await page.goto(`${BASE}/explore?walk=${HUB}&nodes=500&edges=1000&candidates=5000`);
  await page.waitForSelector("#walk-graph[data-nodes]");
  // The first frame: two animation frames after the set-up returned.
  const frameMs = await page.evaluate(
    () => new Promise((resolve) => {
      const t0 = performance.now();
      requestAnimationFrame(() => requestAnimationFrame(() => resolve(performance.now() - t0)));
    }),
  );
  const drawMs = Number(await page.getAttribute("#walk-graph", "data-draw-ms"));
  const clicks = (await clickToPanelMs(page, 3)).map(Math.round);
  const heading = await page.innerText("#walk-details h3");
  await context.close();
  return { drawMs, firstFrameMs: Math.round(frameMs), clickMs: clicks, heading };
}

const browser = await launchChromium();
const results = Object.fromEntries(dists.map((dist) => [dist, []]));
try {
  for (let round = 0; round < rounds; round++) {
    for (const dist of dists) results[dist].push(await measure(browser, dist));
  }
} finally {
  await browser.close();
}
console.log(JSON.stringify(results, null, 1));
