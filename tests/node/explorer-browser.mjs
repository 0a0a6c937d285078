// Drives the evidence explorer (/explore) in headless Debian Chromium with the keyboard, as a
// person would, and reports what the page showed, every GraphQL request it sent (per user
// action), axe-core's findings on each view at 1280×900 and at 390×844, the Tab presses each
// step took, and screenshots of each view at both sizes.
//
// Usage: BASE_URL=http://127.0.0.1:PORT SCENARIO=journey|scope|large TOKEN=… OTHER_TOKEN=…
//        SHOTS=dir FAILURE_DIR=dir [START=…] [HIDDEN=…] [MISSING=…] [UNINDEXED=label] [PHONE=no]
//        [BROWSER_WS=…: a browser started by chromium-server.mjs]
//        node explorer-browser.mjs      → prints one JSON object describing what happened
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { launchChromium } from "./chromium.mjs";
import { clickToPanelMs, walkCentre } from "./walk-clicks.mjs";

const require = createRequire(import.meta.url);
const AXE_SOURCE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };
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
  axe: {}, // view (and size) → [{id, impact, nodes, help}]
  grammar: {}, // view → every "1 <plural noun>" the page printed (there should be none)
  titles: {}, // view → the page's title
  tabs: {}, // step → Tab presses it took
  small: {}, // view at 390×844 → controls smaller than 44 px
  seen: {},
};

/** Thrown to end a scenario early, on purpose. */
class Done extends Error {}

const browser = await launchChromium();
let page;
const contexts = [];

/** A browser context whose requests are watched: only loopback, every GraphQL request noted. */
async function watchedContext(options) {
  const context = await browser.newContext(options);
  contexts.push(context);
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
      let response;
      try {
        response = await route.fetch();
      } catch (error) {
        sent.code = `NETWORK ${error.code ?? error}`;
        return route.abort("connectionreset");
      }
      try {
        sent.code = (await response.json()).errors?.[0]?.extensions?.code ?? null;
      } catch {
        sent.code = `HTTP ${response.status()}`;
      }
      return route.fulfill({ response });
    }
    return route.continue();
  });
  return context;
}

async function newPage(context) {
  const opened = await context.newPage();
  // Waits are for what the page shows, however long a busy machine takes to answer.
  opened.setDefaultTimeout(240000);
  opened.on("pageerror", (error) => report.pageErrors.push(String(error)));
  opened.on("console", (message) => {
    if (message.type() === "error") report.consoleErrors.push(message.text());
  });
  await opened.addInitScript(() => {
    window.__csp = [];
    document.addEventListener("securitypolicyviolation", (event) =>
      window.__csp.push(`${event.violatedDirective} ${event.blockedURI}`),
    );
  });
  return opened;
}

// One user action: what it sent, counted from its start until `done` shows on the page and
// no view is still loading. A view shows its `.loading` line in the same task that changes the
// URL, before it asks the service; the request is recorded (by the route handler above) before
// it reaches the service, so once the answer has replaced `.loading`, the action's request is
// counted. `done` alone is not enough when it is a URL: the URL changes before the request is
// sent, and a loaded machine delivered the intercepted request late, so an action was once
// counted with none and the next with its request (a fresh clone's run, 2 December 2026).
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
// `text`) has the focus; the presses it took. Fails when 400 presses never reach it.
async function tabTo(selector, text) {
  for (let presses = 0; presses < 400; presses++) {
    const there = await page.evaluate(
      ([selector, text]) => {
        const active = document.activeElement;
        const names = [active?.textContent, active?.getAttribute("aria-label")];
        return Boolean(active && active.matches(selector) && (!text || names.some((name) => name?.includes(text))));
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
    const wrong = /(?<![\d.,])\b1 (passages|entities|relations|stored relations|hits|workspaces|documents|labels|nodes|edges|mentions)\b/g;
    return [...text.matchAll(wrong)].map((m) => m[0]);
  });
}

async function axe(view) {
  await grammar(view);
  report.titles[view] = await page.title();
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const result = await window.axe.run(document, { resultTypes: ["violations"] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      nodes: v.nodes.length,
      help: v.help,
      where: v.nodes.slice(0, 3).map((n) => n.target.join(" ")),
    }));
  });
  report.axe[view] = violations;
}

// Controls a finger may miss at 390×844: visible buttons, links, fields, summaries and checkbox
// labels smaller than 44 px either way (WCAG 2.5.5); the drawing itself excepted.
async function smallTargets(view) {
  report.small[view] = await page.evaluate(() => {
    const controls = document.querySelectorAll(
      "a[href], button, select, input:not([type=checkbox]):not([type=hidden]), summary, label:has(input[type=checkbox])",
    );
    // Shown: laid out, and not inside something clipped away for screen readers only.
    const clipped = (e) => {
      for (let at = e; at; at = at.parentElement) if (getComputedStyle(at).clipPath !== "none") return true;
      return false;
    };
    return [...controls]
      .filter((e) => e.offsetParent !== null && !e.closest(".skip") && !clipped(e))
      .map((e) => ({ e, r: e.getBoundingClientRect() }))
      .filter(({ r }) => r.width > 0 && (r.width < 44 || r.height < 44))
      .map(({ e, r }) => `${e.tagName.toLowerCase()} "${(e.textContent || e.getAttribute("aria-label") || "").trim().slice(0, 30)}" ${Math.round(r.width)}×${Math.round(r.height)}`);
  });
}

async function shot(name) {
  await page.waitForTimeout(200); // let the canvas paint
  await page.screenshot({ path: `${env.SHOTS}/${name}.png` });
}

const text = (selector) => page.$$eval(selector, (elements) => elements.map((e) => e.innerText));
const loaded = () => page.waitForFunction(() => !document.querySelector(".loading") && document.querySelector("#explorer-view h2"));

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

/** Marks of the query's words that are not whole words, or whose word is not one asked for. */
async function queryMarks() {
  return page.$$eval(".hit blockquote", (quotes) =>
    quotes.flatMap((quote) => {
      const marks = [...quote.querySelectorAll("mark.mark-query")];
      return marks.map((mark) => {
        const before = mark.previousSibling?.textContent?.slice(-1) ?? "";
        const after = mark.nextSibling?.textContent?.slice(0, 1) ?? "";
        return { text: mark.innerText, wholeWord: !/[\p{L}\p{N}]/u.test(before) && !/[\p{L}\p{N}]/u.test(after) };
      });
    }),
  );
}

/** What the drawing shows, from cytoscape's own instance (the container keeps it). */
async function drawing() {
  return page.evaluate(() => {
    const cy = document.querySelector("#walk-graph")._cyreg.cy;
    const box = document.querySelector("#walk-graph").getBoundingClientRect();
    return {
      box: { x: Math.round(box.x), y: Math.round(box.y), width: Math.round(box.width), height: Math.round(box.height) },
      nodes: cy.nodes().map((n) => ({
        id: n.id(),
        name: n.data("name"),
        group: n.data("group"),
        colour: n.data("colour"),
        distance: n.data("distance"),
        x: n.position().x,
        y: n.position().y,
        hidden: n.hasClass("hidden"),
      })),
      selected: cy.$(".chosen").map((e) => e.id()),
    };
  });
}

async function walkSeen() {
  return {
    title: await page.innerText("#explorer-view h2"),
    summary: await page.innerText(".walk-summary"),
    drawnNodes: Number(await page.getAttribute("#walk-graph", "data-nodes")),
    drawnEdges: Number(await page.getAttribute("#walk-graph", "data-edges")),
    listedNodes: (await text(".node-list li")).length,
    edges: await text(".edge-list button"),
    canvases: (await page.$$("#walk-graph canvas")).length,
    banner: (await page.$(".banner")) ? await page.innerText(".banner") : null,
    url: page.url(),
  };
}

const centroid = (nodes) => ({
  x: nodes.reduce((sum, n) => sum + n.x, 0) / nodes.length,
  y: nodes.reduce((sum, n) => sum + n.y, 0) / nodes.length,
});

const focused = () =>
  page.evaluate(() => ({
    id: document.activeElement?.id ?? "",
    key: document.activeElement?.closest("[data-key]")?.dataset.key ?? null,
    text: document.activeElement?.textContent?.slice(0, 80) ?? "",
  }));

try {
  if (env.SCENARIO === "journey") {
    page = await newPage(await watchedContext({ viewport: DESKTOP }));
    const response = await page.goto(base + "/explore", { waitUntil: "networkidle" });
    report.pageStatus = response.status();
    report.pageCsp = response.headers()["content-security-policy"] ?? null;
    // The favicon the page names is served.
    const icon = await page.getAttribute("link[rel=icon]", "href");
    const iconResponse = await page.request.get(new URL(icon, base).href);
    report.seen.favicon = { href: icon, status: iconResponse.status(), type: iconResponse.headers()["content-type"] };
    report.seen.tokenFieldShown = (await page.$("#token")) !== null;
    report.seen.unauthenticated = await text("[role=alert] h2");
    await tabTo("#token");
    await page.keyboard.type(env.TOKEN);
    await action("token", () => page.keyboard.press("Enter"), () => page.waitForSelector("fieldset.labels", { state: "attached" }));
    report.seen.labelChoices = await page.$$eval("fieldset.labels .label-choice", (labels) => labels.map((l) => l.textContent));
    await axe("home");

    // A query of punctuation is refused in the page: nothing is sent.
    await tabTo("#search-query");
    await page.keyboard.type(" ?! ");
    await action("punctuation", () => page.keyboard.press("Enter"), () => page.waitForSelector("#search-problem:not([hidden])"));
    report.seen.punctuation = {
      problem: await page.innerText("#search-problem"),
      invalid: await page.getAttribute("#search-query", "aria-invalid"),
      focus: (await focused()).id,
      url: page.url(),
    };
    await page.keyboard.press("Control+A");

    // Search "a drone encounter": whole words only, no stop word marked.
    await page.keyboard.type("a drone encounter");
    await action("search", () => page.keyboard.press("Enter"), () => page.waitForSelector(".hits .hit"));
    report.seen.drone = { marks: await queryMarks(), title: await page.title() };

    // Search "alien", ten hits, then more.
    await tabTo("#search-query");
    await page.keyboard.press("Control+A");
    await page.keyboard.type("alien");
    await action("search", () => page.keyboard.press("Enter"), () =>
      page.waitForFunction(() => document.querySelector(".view-title")?.innerText.includes("alien")),
    );
    report.seen.searchUrl = page.url();
    report.seen.hits = await page.$$eval(".hit", (hits) =>
      hits.map((hit) => ({
        name: hit.querySelector("h3 a").innerText,
        status: hit.querySelector(".status").innerText,
        meta: hit.querySelector(".meta").innerText,
        marks: [...hit.querySelectorAll("mark.mark-query")].map((m) => m.innerText),
        names: [...hit.querySelectorAll("mark.mark-name")].map((m) => m.innerText),
        documents: [...hit.querySelectorAll("cite")].map((c) => c.innerText),
      })),
    );
    report.seen.alienMarks = await queryMarks();
    report.seen.searchSummary = await page.innerText(".search-summary");
    await shot("search");
    await axe("search");
    report.tabs.searchTitleToSecondHit = await (async () => {
      await page.focus(".view-title");
      const toFirst = await tabTo(".hit h3 a");
      await page.keyboard.press("ArrowDown");
      return { toFirst, secondByArrow: await page.evaluate(() => document.activeElement?.dataset.key) };
    })();
    if (await page.$("button.more-results")) {
      await tabTo("button.more-results");
      await action("more results", () => page.keyboard.press("Enter"), () =>
        page.waitForFunction(() => location.search.includes("limit=20") && document.querySelectorAll(".hit").length > 10),
      );
      report.seen.more = { hits: (await text(".hit h3 a")).length, focus: (await focused()).key, url: page.url() };
      await page.goBack();
      await page.waitForFunction(() => !location.search.includes("limit=") && document.querySelectorAll(".hit").length);
    }

    // A misspelt name: the page offers the name, and answers the words as typed.
    await tabTo("#search-query");
    await page.keyboard.press("Control+A");
    await page.keyboard.type("Mercr");
    await action("misspelt search", () => page.keyboard.press("Enter"), () =>
      page.waitForFunction(() => document.querySelector(".view-title")?.innerText.includes("Mercr")),
    );
    report.seen.misspelt = {
      title: await page.innerText(".view-title"),
      notice: (await page.$(".notice")) ? await page.innerText(".notice") : null,
      suggestions: await text(".suggestions a"),
      found: await text(".hit .found"),
    };
    await tabTo(".suggestions a");
    await action("did you mean", () => page.keyboard.press("Enter"), () =>
      page.waitForFunction(() => !location.search.includes("Mercr") && document.querySelector(".hit")),
    );
    report.seen.suggested = { title: await page.innerText(".view-title"), found: await text(".hit .found") };
    await page.goBack();
    await page.waitForFunction(() => document.querySelector(".view-title")?.innerText.includes("Mercr"));
    await page.goBack();
    await page.waitForFunction(() => document.querySelector(".view-title")?.innerText.includes("alien"));

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
      named: await page.$$eval("#explorer-view .passages blockquote", (quotes) =>
        quotes.map((q) => [...q.querySelectorAll("mark.mark-name")].map((m) => m.innerText)),
      ),
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

    // Walk from it: the graph first.
    await tabTo("button.walk-from");
    await action("walk", () => page.keyboard.press("Enter"), () => page.waitForSelector("#walk-graph[data-nodes]"));
    report.seen.walk = await walkSeen();
    const before = await drawing();
    report.seen.walk.box = before.box;
    report.seen.walk.colours = Object.fromEntries(before.nodes.map((n) => [n.group, n.colour]));
    report.seen.walk.legend = await text(".legend .legend-label");
    report.seen.walk.types = await page.$$eval(".bounds .type-choice", (labels) => labels.map((l) => l.textContent));
    report.seen.walk.hint = await page.innerText("#walk-details");
    await shot("walk");
    await axe("walk");
    // The legend filters: unchecking a label hides its nodes, checking it shows them again.
    const group = before.nodes.find((n) => n.distance > 0).group;
    await page.focus(".view-title");
    report.tabs.walkTitleToLegend = await tabTo(".legend-label input", "");
    await tabTo(`.legend-label input[value="${group}"]`);
    await page.keyboard.press("Space");
    const filtered = await drawing();
    report.seen.legendFilter = {
      group,
      hidden: filtered.nodes.filter((n) => n.hidden).map((n) => n.group),
      listedHidden: await page.$$eval(".node-list li[hidden]", (items) => items.length),
    };
    await page.keyboard.press("Space");
    report.seen.legendFilter.hiddenAfter = (await drawing()).nodes.filter((n) => n.hidden).length;

    // The keyboard's way through the walk: from its title, Tabs to the graph and to the first
    // relation; arrows within the lists.
    await page.focus(".view-title");
    report.tabs.walkTitleToGraph = await tabTo("#walk-graph");
    await page.focus(".view-title");
    report.tabs.walkTitleToFirstEntity = await tabTo(".node-list button.node");
    await page.focus(".view-title");
    report.tabs.walkTitleToFirstRelation = await tabTo(".edge-list button");
    await page.keyboard.press("ArrowDown");
    report.tabs.arrowToSecondRelation = (await focused()).key === `edge:${(await page.$$eval(".edge-list button", (b) => b[1]?.dataset.id))}`;

    // The drawing takes the focus: an arrow selects a node, Escape clears, Enter expands.
    await tabTo("#walk-graph");
    await page.keyboard.press("ArrowRight");
    await page.waitForFunction(() => location.search.includes("sel=n"));
    const chosen = await drawing();
    report.seen.canvasKeys = {
      selected: chosen.selected,
      heading: await page.innerText("#walk-details h3"),
      status: await page.innerText("#graph-status"),
      focus: (await focused()).id,
    };
    await page.keyboard.press("Escape");
    report.seen.canvasKeys.afterEscape = { selected: (await drawing()).selected, heading: await page.innerText("#walk-details h3") };
    // Select a node that is not the start and expand it with Enter.
    for (let i = 0; i < 8; i++) {
      await page.keyboard.press(i % 2 ? "ArrowDown" : "ArrowRight");
      const now = await drawing();
      const node = now.nodes.find((n) => n.id === now.selected[0]);
      if (node && node.distance > 0) break;
    }
    const parent = (await drawing()).selected[0];
    const parentName = await page.innerText("#walk-details h3");
    await action("expand", () => page.keyboard.press("Enter"), () =>
      page.waitForFunction(() => document.querySelector(".walk-summary")?.innerText.includes("1 expanded")),
    );
    await page.waitForSelector("#walk-graph[data-nodes]");
    const after = await drawing();
    const old = new Set(before.nodes.map((n) => n.id));
    const at = (id) => after.nodes.find((n) => n.id === id);
    const distance = (a, b) => Math.hypot(a.x - b.x, a.y - b.y);
    const fresh = after.nodes.filter((n) => !old.has(n.id));
    const start = after.nodes.find((n) => n.distance === 0);
    report.seen.expanded = {
      ...(await walkSeen()),
      name: parentName,
      focus: (await focused()).id,
      selected: after.selected,
      parent,
      fresh: fresh.length,
      // Each new node: its distance to the node it came from, and to the nearest old node.
      toParent: fresh.map((n) => distance(n, at(parent))),
      toStart: fresh.map((n) => distance(n, start)),
      centroidToParent: distance(centroid(fresh), at(parent)),
      centroidToStart: distance(centroid(fresh), start),
      oldMoved: before.nodes.filter((n) => at(n.id) && distance(n, at(n.id)) > 1).length,
    };
    await shot("expanded");

    // An edge that says what it asserts: its description is the panel's headline and the
    // drawing's tooltip; its evidence marks both ends.
    const edgeId = await page.$$eval(".edge-list button", (buttons) =>
      buttons.find((b) => b.innerText.includes("ASSERTION") && !b.innerText.includes(": no description"))?.dataset.id,
    );
    const edgeText = await page.$eval(`.edge-list button[data-id="${edgeId}"]`, (b) => b.innerText);
    await tabTo(`.edge-list button[data-id="${edgeId}"]`);
    await action("edge evidence", () => page.keyboard.press("Enter"), () => page.waitForSelector("#walk-details .passages blockquote, #walk-details .kind"));
    report.seen.edge = {
      id: edgeId,
      button: edgeText,
      heading: await page.innerText("#walk-details h3"),
      focus: (await focused()).key,
      kind: await page.innerText("#walk-details .kind"),
      passages: await text("#walk-details blockquote"),
      marks: await page.$$eval("#walk-details blockquote", (quotes) =>
        quotes.map((q) => ({
          a: [...q.querySelectorAll("mark.mark-a")].map((m) => m.innerText),
          b: [...q.querySelectorAll("mark.mark-b")].map((m) => m.innerText),
        })),
      ),
      url: page.url(),
    };
    // The tooltip: the pointer on the edge's middle.
    const middle = await page.evaluate((id) => {
      const cy = document.querySelector("#walk-graph")._cyreg.cy;
      const box = document.querySelector("#walk-graph").getBoundingClientRect();
      const edge = cy.getElementById(id);
      cy.center(edge);
      const point = edge.renderedMidpoint();
      return { x: box.x + point.x, y: box.y + point.y };
    }, edgeId);
    await page.mouse.move(middle.x, middle.y);
    await page.waitForSelector(".graph-tooltip:not([hidden])");
    report.seen.edge.tooltip = await page.innerText(".graph-tooltip");
    await page.mouse.move(5, 5);
    await shot("edge");
    await axe("edge");

    // Open its passage: the whole text, both names marked, scrolled to the first mention.
    await tabTo("#walk-details a", "Open passage");
    await action("open passage", () => page.keyboard.press("Enter"), () => page.waitForSelector("#explorer-view .passage-text"));
    await page.waitForFunction(() => document.querySelector("[data-scroll-to]")?.getBoundingClientRect().top < innerHeight);
    report.seen.passage = {
      title: await page.innerText("#explorer-view h2"),
      pageTitle: await page.title(),
      text: await page.innerText(".passage-text"),
      marks: await page.$$eval(".passage-text mark", (marks) => marks.map((m) => `${m.className}:${m.innerText}`)),
      firstMarkInView: await page.$eval("[data-scroll-to]", (mark) => {
        const r = mark.getBoundingClientRect();
        return r.top >= 0 && r.bottom <= innerHeight;
      }),
      scrollY: await page.evaluate(() => scrollY),
      facts: await page.innerText(".facts"),
      mentions: await text(".mentions li a"),
      url: page.url(),
    };
    await shot("passage");
    await axe("passage");

    // Back: the walk, the same edge selected, the focus on the link that was followed.
    await action("back to the edge", () => page.goBack(), () => page.waitForSelector("#walk-graph[data-nodes]"));
    await page.waitForFunction(() => document.activeElement?.closest("[data-key]"));
    report.seen.back = {
      url: page.url(),
      heading: await page.innerText("#walk-details h3"),
      selected: (await drawing()).selected,
      focus: (await focused()).key,
    };

    // A bound that cuts: at most 5 nodes, at depth 2, set in the walk's settings.
    await tabTo(".walk-settings summary");
    await page.keyboard.press("Enter");
    report.seen.typeChoices = await page.$$eval(".bounds .type-choice", (labels) => labels.map((l) => l.textContent));
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
    report.seen.back5 = await walkSeen();
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
    report.seen.urls = [report.seen.searchUrl, report.seen.entity.url, report.seen.walk.url, report.seen.passage.url];
    report.seen.sessionToken = await page.evaluate(() => Object.values(sessionStorage));

    // Each view again at 390×844, by its link, as a phone shows it: screenshots, axe, targets
    // (PHONE=no leaves them out: the trusted-mode run repeats the journey for its requests).
    if (env.PHONE === "no") throw new Done();
    const token = env.TOKEN;
    report.csp.push(...(await page.evaluate(() => window.__csp)));
    const phone = await watchedContext({ viewport: PHONE, hasTouch: true, isMobile: true });
    page = await newPage(phone);
    await page.addInitScript((key) => sessionStorage.setItem("evidencegraph-explorer-token", key), token);
    const views = {
      home: "/explore",
      search: new URL(report.seen.searchUrl).search,
      entity: new URL(report.seen.entity.url).search,
      walk: new URL(report.seen.walk.url).search,
      edge: new URL(report.seen.edge.url).search,
      truncated: new URL(report.seen.truncated.url).search,
      passage: new URL(report.seen.passage.url).search,
    };
    for (const [view, search] of Object.entries(views)) {
      await page.goto(`${base}/explore${search === "/explore" ? "" : search}`, { waitUntil: "networkidle" });
      await loaded();
      if (search.includes("walk=")) await page.waitForSelector("#walk-graph[data-nodes]");
      await shot(`${view}-phone`);
      await axe(`${view} (phone)`);
      await smallTargets(view);
    }
    // Tap a node's centre: that node opens in the sheet.
    await page.goto(`${base}/explore${views.walk}`, { waitUntil: "networkidle" });
    await page.waitForSelector("#walk-graph[data-nodes]");
    const phoneDrawing = await drawing();
    const target = await page.evaluate(() => {
      const cy = document.querySelector("#walk-graph")._cyreg.cy;
      const box = document.querySelector("#walk-graph").getBoundingClientRect();
      const sheet = document.querySelector("#walk-details").getBoundingClientRect().top;
      // A node other than the start, whole inside the drawing and above the sheet.
      const node = cy
        .nodes("[distance > 0]")
        .filter((n) => {
          const r = n.renderedBoundingBox({ includeLabels: false });
          return r.x1 > 0 && r.y1 > 0 && r.x2 < box.width && box.y + r.y2 < sheet;
        })
        .first();
      const point = node.renderedPosition();
      return { id: node.id(), name: node.data("name"), x: box.x + point.x, y: box.y + point.y, size: node.renderedWidth() };
    });
    await page.touchscreen.tap(target.x, target.y);
    await page.waitForFunction((name) => document.querySelector("#walk-details h3")?.innerText === name, target.name);
    report.seen.phone = {
      box: phoneDrawing.box,
      tapped: target,
      heading: await page.innerText("#walk-details h3"),
      sheet: await page.$eval("#walk-details", (e) => {
        const r = e.getBoundingClientRect();
        return { top: Math.round(r.top), bottom: Math.round(r.bottom), open: e.classList.contains("open") };
      }),
    };
    await shot("tap-phone");
  } else if (env.SCENARIO === "scope") {
    page = await newPage(await watchedContext({ viewport: DESKTOP }));
    // Each token's answers to the same search, in its own tab.
    for (const [who, token] of [["first", env.TOKEN], ["second", env.OTHER_TOKEN]]) {
      await openWithToken("/explore?q=alien&mode=LEXICAL", token);
      await page.waitForSelector(".hits .hit, .empty");
      report.seen[who] = {
        hits: await text(".hit h3 a"),
        documents: await text(".hit cite"),
        // The scope panel's choices: the workspaces this token may read.
        granted: await page.$$eval("fieldset.workspaces .workspace-choice", (labels) => labels.map((l) => l.textContent)),
        grantedLegend: await page.$$eval("fieldset.workspaces legend", (legends) => legends.map((l) => l.textContent)),
      };
      await axe(`scope ${who}`);
      // Narrow to the first granted workspace with the keyboard: open the panel, Space checks it.
      const workspace = report.seen[who].granted[0];
      await tabTo(".scope-panel summary");
      await page.keyboard.press("Enter");
      await tabTo(`fieldset.workspaces input[type=checkbox][value="${workspace}"]`);
      await page.keyboard.press("Space");
      await tabTo("form.scope button[type=submit]", "Apply scope");
      // Done when the link holds the choice and the search's answer has replaced its "Searching"
      // line (the link alone changes before the request is sent).
      await action(`scope ${who}`, () => page.keyboard.press("Enter"), () =>
        page.waitForFunction(
          (ws) => new URLSearchParams(location.search).get("ws") === ws && !document.querySelector("#explorer-view .loading"),
          workspace,
        ),
      );
      await page.waitForSelector(".hits .hit, .empty");
      report.seen[who].scopedUrl = page.url();
      report.seen[who].scopedHits = await text(".hit h3 a");
      report.seen[who].checkedAfter = await page.$$eval("fieldset.workspaces input[type=checkbox]:checked", (boxes) =>
        boxes.map((box) => box.value),
      );
      // A walk from its first hit.
      if (report.seen[who].hits.length) {
        await tabTo(".hit h3 a");
        await page.keyboard.press("Enter");
        await page.waitForSelector("button.walk-from");
        await tabTo("button.walk-from");
        await page.keyboard.press("Enter");
        await page.waitForSelector("#walk-graph[data-nodes]");
        report.seen[who].walkNodes = await text(".node-list li button.node");
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
    page = await newPage(await watchedContext({ viewport: DESKTOP }));
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
    // A PATH's dashes on screen at the zoom the walk is first drawn at, in pixels.
    report.seen.large.pathDashPx = await page.evaluate(() => {
      const cy = document.querySelector("#walk-graph")._cyreg.cy;
      const pattern = cy.edges('[kind = "PATH"]').first().pstyle("line-dash-pattern").pfValue;
      return pattern.map((length) => Math.round(length * cy.zoom() * 10) / 10);
    });
    // Input on the drawing: a click on the start (the centre) until its panel shows, the first
    // choosing it, the others choosing it again; and the elements whose bounds the clicks
    // change (cytoscape works out every edge of a node whose bounds change again before it
    // draws: 499 here).
    await page.evaluate(() => {
      window.__bounds = new Set();
      document.querySelector("#walk-graph")._cyreg.cy.on("bounds", (event) => void window.__bounds.add(event.target.id()));
    });
    const inputs = await clickToPanelMs(page, 5);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    report.seen.large.boundsChangedByClicks = await page.evaluate(() => [...window.__bounds]);
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
  report.csp.push(...(await page.evaluate(() => window.__csp)));
} catch (error) {
  if (error instanceof Done) report.csp.push(...(await page.evaluate(() => window.__csp)));
  else report.failure = String(error?.stack || error);
  try {
    report.failurePage = (await page?.innerText("body"))?.slice(0, 3000);
    await page?.screenshot({ path: `${env.FAILURE_DIR || env.SHOTS}/failure-${env.SCENARIO}.png` });
  } catch {}
} finally {
  for (const context of contexts) await context.close().catch(() => {});
  await browser.close();
}
console.log(JSON.stringify(report));
