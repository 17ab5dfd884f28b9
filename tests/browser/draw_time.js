#!/usr/bin/env node
// How long headless Chromium takes to draw every chart of a rendered apod report: from the
// start of navigation (performance.now() = 0) to <body data-charts="done">, which
// templates/charts.js sets after the last chart. Loads the page REPEAT times in fresh pages of
// one browser and prints each time, the median and the number of charts. A benchmark
// (ci/bench_report_budget.sh, docs/performance.md), not a test: nothing here is asserted.
// Usage: node draw_time.js REPORT.html [--repeat 3]
'use strict';

const path = require('path');
const { pathToFileURL } = require('url');
const { open_browser } = require('./chromium');

async function main() {
  const argv = process.argv.slice(2);
  const html = argv[0];
  const repeat = argv[1] === '--repeat' ? Number(argv[2]) : 3;
  if (!html || !(repeat >= 1)) throw new Error('usage: draw_time.js REPORT.html [--repeat N]');
  const browser = await open_browser('apod-draw-time-', { width: 1280, height: 900 });
  const context = browser.context;
  const times = [];
  let charts = 0, status = '';
  try {
    // The moment charts.js marks the body, taken in the page so no polling delay is counted.
    await context.addInitScript(() => {
      new MutationObserver((_, observer) => {
        if (document.body && document.body.hasAttribute('data-charts')) {
          window.__apod_drawn_ms = performance.now();
          observer.disconnect();
        }
      }).observe(document, { attributes: true, subtree: true, attributeFilter: ['data-charts'] });
    });
    for (let i = 0; i < repeat; i++) {
      const page = await context.newPage();
      await page.goto(pathToFileURL(path.resolve(html)).href, { waitUntil: 'load' });
      await page.waitForFunction(() => window.__apod_drawn_ms !== undefined, null,
                                 { timeout: 120000 });
      const result = await page.evaluate(() => ({
        ms: window.__apod_drawn_ms,
        status: document.body.getAttribute('data-charts'),
        charts: document.querySelectorAll('.chart-canvas[data-rendered="true"]').length,
      }));
      times.push(result.ms);
      charts = result.charts;
      status = result.status;
      console.log(`load ${i + 1}: every chart drawn ${(result.ms / 1000).toFixed(2)} s after ` +
                  `navigation (${result.charts} charts, ${result.status})`);
      await page.close();
    }
  } finally {
    await browser.close();
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)];
  console.log(`draw_time: median ${(median / 1000).toFixed(2)} s, ${charts} charts, ${status}`);
}

main().catch((error) => {
  console.log(`FAIL: ${error.stack || error}`);
  process.exit(1);
});
