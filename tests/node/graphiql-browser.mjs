// Drives the service's GraphiQL page in headless Debian Chromium, like a person would: opens
// the page, types an operation, its variables and a header, runs it, waits for the answer and
// takes a screenshot. Every request to a host other than this machine's loopback is aborted
// and reported.
//
// Usage: PAGE_URL=… OPERATION=… VARIABLES=… HEADERS=… EXPECT='["…"]' SCREENSHOT=path
//        node graphiql-browser.mjs        → prints one JSON object describing what happened
import { launchChromium } from "./chromium.mjs";

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);
const expected = JSON.parse(process.env.EXPECT);
const report = {
  blocked: [],
  requested: [],
  graphqlRequests: [],
  csp: [],
  pageErrors: [],
  consoleErrors: [],
};

const browser = await launchChromium();
try {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  await context.route("**/*", async (route) => {
    const request = route.request();
    const url = new URL(request.url());
    if (url.protocol === "data:") return route.continue();
    report.requested.push(`${request.method()} ${url.host}${url.pathname}`);
    if (!LOOPBACK.has(url.hostname)) {
      report.blocked.push(request.url());
      return route.abort("blockedbyclient");
    }
    if (url.pathname === "/graphql" && request.method() === "POST") {
      const body = request.postDataJSON();
      report.graphqlRequests.push({
        operationName: body.operationName ?? null,
        introspection: (body.query || "").includes("__schema"),
        authorization: request.headers()["authorization"] ?? null,
        accept: request.headers()["accept"] ?? null,
      });
    }
    return route.continue();
  });

  const page = await context.newPage();
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

  const response = await page.goto(process.env.PAGE_URL, { waitUntil: "networkidle" });
  report.pageStatus = response.status();
  report.pageCsp = response.headers()["content-security-policy"] ?? null;
  await page.waitForSelector(".graphiql-query-editor .CodeMirror", { timeout: 30000 });

  // Type into a CodeMirror editor as a person does: click, select all, type over it.
  async function typeInto(selector, text) {
    await page.click(`${selector} .CodeMirror-scroll`);
    await page.keyboard.press("Control+A");
    await page.keyboard.press("Delete");
    await page.keyboard.insertText(text);
    return page.$eval(`${selector} .CodeMirror`, (element) => element.CodeMirror.getValue());
  }

  report.typedOperation = await typeInto(".graphiql-query-editor", process.env.OPERATION);
  await page.getByRole("button", { name: "Variables", exact: true }).click();
  report.typedVariables = await typeInto(
    ".graphiql-editor-tool .graphiql-editor:not(.hidden)",
    process.env.VARIABLES,
  );
  await page.getByRole("button", { name: "Headers", exact: true }).click();
  report.typedHeaders = await typeInto(
    ".graphiql-editor-tool .graphiql-editor:not(.hidden)",
    process.env.HEADERS,
  );

  // The explorer plugin, from the sidebar.
  await page.click('[aria-label="Show GraphiQL Explorer"]');
  await page.waitForSelector(".graphiql-explorer-root, .docExplorerWrap", { timeout: 10000 });
  report.explorerShown = true;

  await page.click(".graphiql-execute-button");
  await page.waitForFunction(
    (needles) => {
      const editor = document.querySelector(".graphiql-response .CodeMirror");
      const text = editor ? editor.CodeMirror.getValue() : "";
      return needles.every((needle) => text.includes(needle));
    },
    expected,
    { timeout: 30000 },
  );
  report.result = await page.$eval(".graphiql-response .CodeMirror", (element) =>
    element.CodeMirror.getValue(),
  );
  // Let the result pane paint before the picture.
  await page.waitForTimeout(300);
  await page.screenshot({ path: process.env.SCREENSHOT });
  report.csp = await page.evaluate(() => window.__csp);
} catch (error) {
  report.failure = String(error?.stack || error);
} finally {
  await browser.close();
}
console.log(JSON.stringify(report));
