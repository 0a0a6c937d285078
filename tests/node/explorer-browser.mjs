// Drives the evidence explorer (/explore) in headless Debian Chromium with the keyboard, as a
// person would, and reports what the page showed, every GraphQL request it sent (per user
// action), axe-core's serious and critical findings on each view, and screenshots.
//
// Usage: BASE_URL=http://127.0.0.1:PORT SCENARIO=journey|scope|large TOKEN=… OTHER_TOKEN=…
//        SHOTS=dir FAILURE_DIR=dir [START=…] [HIDDEN=…] [MISSING=…] [UNINDEXED=label]
//        node explorer-browser.mjs      → prints one JSON object describing what happened
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { launchChromium } from "./chromium.mjs";
import { clickToPanelMs, walkCentre } from "./walk-clicks.mjs";

const require = createRequire(import.meta.url);
const AXE_SOURCE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);
const env = process.env;
const base = env.BASE_URL;
const report = {
  blocked: [],
  csp: [],
  pageErrors: [],
  consoleErrors: [],
  // every POST /graphql: {operationName, variables, authorization, text, hash, code}: whether it
  // carried the document's text, the persisted query hash it carried, its answer's first code
  requests: [],
  actions: [], // {name, requests: [operationName…], sent: [{operationName, text, hash, code}…]}
  axe: {}, // view → [{id, impact, nodes}]
  grammar: {}, // view → every "1 <plural noun>" the page printed (there should be none)
  seen: {},
};

const browser = await launchChromium();
let page;
try {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  await context.route("**/*", async (route) => {
    const request = route.request();
    const url = new URL(request.url());
    if (!LOOPBACK.has(url.hostname)) {
      report.blocked.push(request.url());
      return route.abort("blockedbyclient");
    }
    if (url.pathname === "/graphql" && request.method() === "POST") {
      const body = request.postDataJSON();
      const sent = {
        operationName: body.operationName ?? null,
        variables: body.variables ?? null,
        authorization: request.headers()["authorization"] ?? null,
        text: typeof body.query === "string",
        hash: body.extensions?.persistedQuery?.sha256Hash ?? null,
        code: null,
      };
      report.requests.push(sent);
      // Passed on to the service as it is; its answer is read for the code, then delivered.
      const response = await route.fetch();
      try {
        sent.code = (await response.json()).errors?.[0]?.extensions?.code ?? null;
      } catch {
        sent.code = `HTTP ${response.status()}`;
      }
      return route.fulfill({ response });
    }
    return route.continue();
  });
  page = await context.newPage();
  // Waits are for what the page shows, however long a busy machine takes to answer.
  page.setDefaultTimeout(240000);
  page.on("pageerror", (error) => report.pageErrors.push(String(error)));
  page.on("console", (message) => {
    if (message.type() === "error") report.consoleErrors.push(message.text());
  });
  await page.addInitScript(() => {
    window.__csp = [];
    document.addEventListener("securitypolicyviolation", (event) =>
      window.__csp.push(`${event.violatedDirective} ${event.blockedURI}`),
    );
  });

  // One user action: what it sent, counted from its start until `done` shows on the page and
  // no view is still loading. A view shows its `.loading` line in the same task that changes the
  // URL, before it asks the service; the request is recorded (by the route handler above) before
  // it reaches the service, so once the answer has replaced `.loading`, the action's request is
  // counted. `done` alone is not enough when it is a URL: the URL changes before the request is
  // sent, and a loaded machine delivered the intercepted request late, so an action was once
  // counted with none and the next with its request (a fresh clone's run, 2 December 2026).
  // (`waitForLoadState("networkidle")` does not wait: the page reached that state long before.)
  async function action(name, perform, done) {
    const before = report.requests.length;
    await perform();
    await done();
    await page.waitForFunction(() => !document.querySelector(".loading"));
    report.actions.push({
      name,
      requests: report.requests.slice(before).map((request) => request.operationName),
      sent: report.requests
        .slice(before)
        .map(({ operationName, text, hash, code }) => ({ operationName, text, hash, code })),
    });
  }

  // The keyboard alone: Tab until the element `selector` (and, when given, whose text holds
  // `text`) has the focus. Fails when 400 presses never reach it.
  async function tabTo(selector, text) {
    for (let presses = 0; presses < 400; presses++) {
      const there = await page.evaluate(
        ([selector, text]) => {
          const active = document.activeElement;
          const names = [active?.textContent, active?.getAttribute("aria-label")];
          return Boolean(
            active && active.matches(selector) && (!text || names.some((name) => name?.includes(text))),
          );
        },
        [selector, text],
      );
      if (there) return presses;
      await page.keyboard.press("Tab");
    }
    throw new Error(`Tab never reached ${selector} ${text ?? ""}`);
  }

  // A count of one with a plural noun ("1 passages"), anywhere in the page's text or labels.
  async function grammar(view) {
    report.grammar[view] = await page.evaluate(() => {
      const labels = [...document.querySelectorAll("[aria-label]")].map((e) => e.getAttribute("aria-label"));
      const text = [document.body.innerText, ...labels].join("\n");
      const wrong = /(?<![\d.,])\b1 (passages|entities|relations|stored relations|hits|workspaces|documents|labels|nodes|edges)\b/g;
      return [...text.matchAll(wrong)].map((m) => m[0]);
    });
  }

  async function axe(view) {
    await grammar(view);
    await page.evaluate(AXE_SOURCE);
    const violations = await page.evaluate(async () => {
      const result = await window.axe.run(document, { resultTypes: ["violations"] });
      return result.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length, help: v.help }));
    });
    report.axe[view] = violations;
  }

  async function shot(name) {
    await page.waitForTimeout(200); // let the canvas paint
    await page.screenshot({ path: `${env.SHOTS}/${name}.png`, fullPage: true });
  }

  const text = (selector) => page.$$eval(selector, (elements) => elements.map((e) => e.innerText));

  async function openWithToken(path, token) {
    await page.goto(base + path, { waitUntil: "networkidle" });
    await tabTo("#token");
    await page.keyboard.type(token);
    // Done when the view the link names has replaced the UNAUTHENTICATED panel the page showed
    // before the token (which is itself an alert) and has finished loading.
    await action(
      "token",
      () => page.keyboard.press("Enter"),
      () =>
        page.waitForFunction(() => {
          const view = document.querySelector("#explorer-view");
          return Boolean(
            view?.querySelector(".view-title, [role=alert]") &&
              !view.querySelector(".loading") &&
              !view.innerText.includes("UNAUTHENTICATED"),
          );
        }),
    );
  }

  if (env.SCENARIO === "journey") {
    const response = await page.goto(base + "/explore", { waitUntil: "networkidle" });
    report.pageStatus = response.status();
    report.pageCsp = response.headers()["content-security-policy"] ?? null;
    report.seen.tokenFieldShown = (await page.$("#token")) !== null;
    report.seen.unauthenticated = await text("[role=alert] h2");
    await tabTo("#token");
    await page.keyboard.type(env.TOKEN);
    await action("token", () => page.keyboard.press("Enter"), () => page.waitForSelector("fieldset.labels"));
    report.seen.labelChoices = await text("fieldset.labels .label-choice");
    await axe("home");

    // Search "alien".
    await tabTo("#search-query");
    await page.keyboard.type("alien");
    await action("search", () => page.keyboard.press("Enter"), () => page.waitForSelector(".hits .hit"));
    report.seen.searchUrl = page.url();
    report.seen.hits = await page.$$eval(".hit", (hits) =>
      hits.map((hit) => ({
        name: hit.querySelector("h3 a").innerText,
        status: hit.querySelector(".status").innerText,
        meta: hit.querySelector(".meta").innerText,
        marks: [...hit.querySelectorAll("mark")].map((m) => m.innerText),
        documents: [...hit.querySelectorAll("cite")].map((c) => c.innerText),
      })),
    );
    await shot("search");
    await axe("search");

    // Open the first hit that has evidence.
    const first = report.seen.hits.find((hit) => hit.status === "SUPPORTED");
    await tabTo(".hit h3 a", first.name);
    await action("open hit", () => page.keyboard.press("Enter"), () =>
      page.waitForFunction((name) => document.querySelector("#explorer-view h2")?.innerText === name, first.name),
    );
    report.seen.entity = {
      title: await page.innerText("#explorer-view h2"),
      labels: await text("#explorer-view .labels .chip"),
      description: await page.innerText("#explorer-view .description"),
      passages: (await text("#explorer-view .passages blockquote")).length,
      more: (await page.$("button.more:not([hidden])")) !== null,
      url: page.url(),
    };
    if (report.seen.entity.more) {
      await tabTo("button.more");
      const shown = report.seen.entity.passages;
      await action("more evidence", () => page.keyboard.press("Enter"), () =>
        page.waitForFunction((n) => document.querySelectorAll("#explorer-view .passages li").length > n, shown),
      );
      report.seen.entity.passagesAfterMore = (await text("#explorer-view .passages blockquote")).length;
    }
    await shot("entity");
    await axe("entity");

    // Walk from it.
    await tabTo("button.walk-from");
    await action("walk", () => page.keyboard.press("Enter"), () => page.waitForSelector("#walk-graph[data-nodes]"));
    const walkSeen = async () => ({
      title: await page.innerText("#explorer-view h2"),
      summary: await page.innerText(".walk-summary"),
      drawnNodes: Number(await page.getAttribute("#walk-graph", "data-nodes")),
      drawnEdges: Number(await page.getAttribute("#walk-graph", "data-edges")),
      listedNodes: (await text(".node-list li")).length,
      edges: await text(".edge-list button"),
      canvases: (await page.$$("#walk-graph canvas")).length,
      banner: (await page.$(".banner")) ? await page.innerText(".banner") : null,
      url: page.url(),
    });
    report.seen.walk = await walkSeen();
    await shot("walk");
    await axe("walk");

    // Expand a node that is not the start.
    const expandName = await page.$eval(".node-list li button.expand:not([disabled])", (b) => b.getAttribute("aria-label"));
    await tabTo(".node-list button.expand", expandName);
    await action("expand", () => page.keyboard.press("Enter"), () =>
      page.waitForFunction(() => document.querySelector(".walk-summary")?.innerText.includes("1 expanded")),
    );
    report.seen.expanded = { name: expandName, ...(await walkSeen()) };

    // An edge's evidence.
    const edgeText = (await text(".edge-list button"))[0];
    await tabTo(".edge-list button", edgeText);
    await action("edge evidence", () => page.keyboard.press("Enter"), () =>
      page.waitForSelector("#walk-details .passages blockquote, #walk-details .kind"),
    );
    report.seen.edge = {
      button: edgeText,
      heading: await page.innerText("#walk-details h3"),
      kind: await page.innerText("#walk-details .kind"),
      passages: await text("#walk-details blockquote"),
    };
    await shot("edge");

    // A bound that cuts: at most 5 nodes, at depth 2.
    await tabTo("#walk-depth");
    await page.keyboard.press("ArrowDown"); // 1 → 2
    await tabTo("#walk-nodes");
    await page.keyboard.press("Control+A");
    await page.keyboard.type("5");
    await action("walk with 5 nodes", () => page.keyboard.press("Enter"), () => page.waitForSelector(".banner"));
    report.seen.truncated = await walkSeen();
    await shot("truncated");
    await axe("truncated");

    // Narrow by relation type: one click (the banner's button).
    await tabTo(".banner button.fix", "Only ");
    const narrowText = await page.evaluate(() => document.activeElement.innerText);
    await action("narrow", () => page.keyboard.press("Enter"), () =>
      page.waitForFunction(() => location.search.includes("types=") && !document.querySelector("#explorer-view .loading")),
    );
    await page.waitForSelector("#walk-graph[data-nodes]");
    report.seen.narrowButton = narrowText;
    report.seen.narrowed = await walkSeen();
    report.seen.narrowedVariables = report.requests.at(-1).variables;

    // Reload the deep link: the same view (the token is kept for this tab).
    await action("reload", () => page.reload(), () => page.waitForSelector("#walk-graph[data-nodes]"));
    report.seen.reloaded = await walkSeen();

    // Back and forward.
    await page.goBack();
    await page.waitForFunction(() => !location.search.includes("types="));
    await page.waitForSelector("#walk-graph[data-nodes]");
    report.seen.back = await walkSeen();
    await page.goForward();
    await page.waitForFunction(() => location.search.includes("types="));
    await page.waitForSelector("#walk-graph[data-nodes]");
    report.seen.forward = await walkSeen();

    // Raise the bound instead: the banner's other fix.
    await page.goBack();
    await page.waitForSelector(".banner");
    await tabTo(".banner button.fix", "Raise max nodes");
    await action("raise bound", () => page.keyboard.press("Enter"), () =>
      page.waitForFunction(() => location.search.includes("nodes=10") && !document.querySelector("#explorer-view .loading")),
    );
    await page.waitForSelector("#walk-graph[data-nodes]");
    report.seen.raised = await walkSeen();

    // A passage: from the edge evidence of a fresh walk.
    await tabTo(".edge-list button");
    await page.keyboard.press("Enter");
    await page.waitForSelector("#walk-details a");
    await tabTo("#walk-details a", "open passage");
    await action("open passage", () => page.keyboard.press("Enter"), () => page.waitForSelector("#explorer-view .passage-text"));
    report.seen.passage = {
      title: await page.innerText("#explorer-view h2"),
      text: await page.innerText(".passage-text"),
      facts: await page.innerText(".facts"),
      mentions: await text(".mentions li a"),
      url: page.url(),
    };
    await shot("passage");
    await axe("passage");
    report.seen.urls = [report.seen.searchUrl, report.seen.entity.url, report.seen.walk.url, report.seen.passage.url];
    report.seen.sessionToken = await page.evaluate(() => Object.values(sessionStorage));
  } else if (env.SCENARIO === "scope") {
    // Each token's answers to the same search, in its own tab.
    for (const [who, token] of [["first", env.TOKEN], ["second", env.OTHER_TOKEN]]) {
      await openWithToken("/explore?q=alien&mode=LEXICAL", token);
      await page.waitForSelector(".hits .hit, .empty");
      report.seen[who] = {
        hits: await text(".hit h3 a"),
        documents: await text(".hit cite"),
        // The scope panel's choices: the workspaces this token grants.
        granted: await text("fieldset.workspaces .workspace-choice"),
        grantedLegend: await text("fieldset.workspaces legend"),
      };
      await axe(`scope ${who}`);
      // Narrow to the first granted workspace with the keyboard: Space checks it.
      const workspace = report.seen[who].granted[0];
      await tabTo(`fieldset.workspaces input[type=checkbox][value="${workspace}"]`);
      await page.keyboard.press("Space");
      await tabTo("form.scope button[type=submit]", "Apply scope");
      // Done when the link holds the choice and the search's answer has replaced its "Searching"
      // line (the link alone changes before the request is sent).
      await action(`scope ${who}`, () => page.keyboard.press("Enter"), () =>
        page.waitForFunction(
          (ws) =>
            new URLSearchParams(location.search).get("ws") === ws &&
            !document.querySelector("#explorer-view .loading"),
          workspace,
        ),
      );
      await page.waitForSelector(".hits .hit, .empty");
      report.seen[who].scopedUrl = page.url();
      report.seen[who].scopedHits = await text(".hit h3 a");
      report.seen[who].checkedAfter = await page.$$eval(
        "fieldset.workspaces input[type=checkbox]:checked",
        (boxes) => boxes.map((box) => box.value),
      );
      // A walk from its first hit.
      if (report.seen[who].hits.length) {
        await tabTo(".hit h3 a");
        await page.keyboard.press("Enter");
        await page.waitForSelector("button.walk-from");
        await tabTo("button.walk-from");
        await page.keyboard.press("Enter");
        await page.waitForSelector("#walk-graph[data-nodes]");
        report.seen[who].walkNodes = await text(".node-list li a");
      }
      await page.evaluate(() => sessionStorage.clear());
    }
    // The second token, deep links to an entity it may not see and to one that does not exist.
    await openWithToken(`/explore?entity=${env.HIDDEN}`, env.OTHER_TOKEN);
    report.seen.hidden = await page.innerText("#explorer-view");
    await axe("not found");
    await page.goto(`${base}/explore?entity=${env.MISSING}`, { waitUntil: "networkidle" });
    await page.waitForSelector("#explorer-view [role=alert]");
    report.seen.missing = await page.innerText("#explorer-view");
    await page.goto(`${base}/explore?walk=${env.HIDDEN}`, { waitUntil: "networkidle" });
    await page.waitForSelector("#explorer-view [role=alert]");
    report.seen.hiddenWalk = await page.innerText("#explorer-view");
    await page.goto(`${base}/explore?walk=${env.MISSING}`, { waitUntil: "networkidle" });
    await page.waitForSelector("#explorer-view [role=alert]");
    report.seen.missingWalk = await page.innerText("#explorer-view");
    // A workspace the token is not granted.
    await page.goto(`${base}/explore?q=alien&mode=LEXICAL&ws=demo`, { waitUntil: "networkidle" });
    await page.waitForSelector("#explorer-view [role=alert]");
    report.seen.forbidden = await page.innerText("#explorer-view");
    await shot("forbidden");
    await axe("error");
    // A label whose indexes do not exist.
    await page.goto(`${base}/explore?q=alien&mode=LEXICAL&labels=${env.UNINDEXED}`, { waitUntil: "networkidle" });
    await page.waitForSelector("#explorer-view [role=alert]");
    report.seen.indexNotReady = await page.innerText("#explorer-view");
    // The backend away for one answer: the error and its retry.
    let failures = 1;
    await page.route("**/graphql", async (route) => {
      if (route.request().postDataJSON()?.operationName === "ExplorerSearch" && failures-- > 0) {
        return route.fulfill({
          status: 200,
          contentType: "application/json",
          body: JSON.stringify({
            data: null,
            errors: [{ message: "Neo4j cannot be reached.", extensions: { code: "BACKEND_UNAVAILABLE" } }],
          }),
        });
      }
      return route.fallback();
    });
    await page.goto(`${base}/explore?q=alien&mode=LEXICAL`, { waitUntil: "networkidle" });
    await page.waitForSelector("#explorer-view [role=alert]");
    report.seen.backendUnavailable = await page.innerText("#explorer-view");
    await tabTo("button.retry");
    await action("retry", () => page.keyboard.press("Enter"), () => page.waitForSelector(".hits .hit"));
    report.seen.afterRetry = await text(".hit h3 a");
    report.seen.urls = [page.url()];
  } else if (env.SCENARIO === "large") {
    await openWithToken("/explore", env.TOKEN);
    const started = Date.now();
    await action(
      "walk 500",
      () => page.goto(`${base}/explore?walk=${env.START}&nodes=500&edges=1000&candidates=5000`),
      () => page.waitForSelector("#walk-graph[data-nodes]", { timeout: 60000 }),
    );
    report.seen.large = {
      pageToDrawnMs: Date.now() - started,
      drawMs: Number(await page.getAttribute("#walk-graph", "data-draw-ms")),
      nodes: Number(await page.getAttribute("#walk-graph", "data-nodes")),
      edges: Number(await page.getAttribute("#walk-graph", "data-edges")),
    };
    await shot("walk-500");
    // Input on the drawing: a click on the start (the centre) until its panel shows.
    const inputs = await clickToPanelMs(page, 5);
    const box = await walkCentre(page);
    // A wheel zoom until the next painted frame.
    const zooms = [];
    for (let i = 0; i < 5; i++) {
      await page.mouse.move(box.x, box.y);
      const t0 = await page.evaluate(() => performance.now());
      await page.mouse.wheel(0, i % 2 ? 200 : -200);
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      zooms.push((await page.evaluate(() => performance.now())) - t0);
    }
    report.seen.large.clickToPanelMs = inputs;
    report.seen.large.wheelToFrameMs = zooms;
    report.seen.large.detailsHeading = await page.innerText("#walk-details h3");
    report.seen.large.summary = await page.innerText(".walk-summary");
    // How the edge list counts each edge's passages, by kind and count.
    report.seen.large.edgeCounts = await page.$$eval(".edge-list button", (buttons) => {
      const counts = {};
      for (const b of buttons) {
        const tail = b.innerText.match(/\(([A-Z]+, \d+ \w+)\)$/)?.[1] ?? b.innerText;
        counts[tail] = (counts[tail] ?? 0) + 1;
      }
      return counts;
    });
    await grammar("walk 500");
  }
  report.csp = await page.evaluate(() => window.__csp);
} catch (error) {
  report.failure = String(error?.stack || error);
  try {
    report.failurePage = (await page?.innerText("body"))?.slice(0, 3000);
    await page?.screenshot({ path: `${env.FAILURE_DIR || env.SHOTS}/failure-${env.SCENARIO}.png` });
  } catch {}
} finally {
  await browser.close();
}
console.log(JSON.stringify(report));
