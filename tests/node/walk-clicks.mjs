// How long the explorer's walk drawing takes to answer a click: a click on its centre (the
// walk's start) until the start's panel shows, `rounds` times, in milliseconds. Shared by the
// browser test (tests/node/explorer-browser.mjs) and the drawing benchmark
// (tests/node/explorer-draw-bench.mjs), so both measure the same thing.

/** The centre of the walk's drawing, in page coordinates: where the start is drawn. */
export async function walkCentre(page) {
  return page.$eval("#walk-graph", (e) => {
    const r = e.getBoundingClientRect();
    return { x: r.x + r.width / 2, y: r.y + r.height / 2 };
  });
}

export async function clickToPanelMs(page, rounds) {
  const box = await walkCentre(page);
  const times = [];
  for (let i = 0; i < rounds; i++) {
    await page.evaluate(() => document.querySelector("#walk-details").replaceChildren());
    const t0 = await page.evaluate(() => performance.now());
    await page.mouse.click(box.x, box.y);
    await page.waitForSelector("#walk-details h3");
    times.push((await page.evaluate(() => performance.now())) - t0);
  }
  return times;
}
