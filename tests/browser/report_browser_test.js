#!/usr/bin/env node
// Opens an apod report in headless Chromium and fails unless it draws every chart with no
// console error, no request beyond file:/data:/blob:/about:, and no injected script running.
// Usage: node report_browser_test.js REPORT.html [--screenshot OUT.png] [--expect SELECTOR]...
//        [--open-rows N]
// Each --expect selector must match at least one element (a section the report must have).
// Page-level checks (page_checks.js): no console warning (Vega warns there), the first screen
// first, no legend over the series limit, no truncated label, and the history's charts drawn on
// demand for up to N rows (default 12).
// Run through run_browser_test.sh, which skips (exit 77) where Chromium or playwright-core is
// missing. Never downloads a browser: it drives the system Chromium.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const { pathToFileURL } = require('url');
const { chromium } = require('playwright-core');
const page_checks = require('./page_checks');

const ALLOWED_SCHEMES = ['file:', 'data:', 'blob:', 'about:'];
// Data marks only: axes, legends and the theoretical-limit rule and label are drawn whatever the
// data, so a chart counts as drawn when its line, symbol, bar or area groups hold a shape.
const MARK_SELECTOR = ['line', 'symbol', 'rect', 'area', 'arc', 'trail']
  .map((type) => `.mark-${type}.role-mark path`).join(', ');

function parse_args(argv) {
  const args = { html: null, screenshot: null, expect: [], open_rows: 12 };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--screenshot') args.screenshot = argv[++i];
    else if (argv[i] === '--open-rows') args.open_rows = Number(argv[++i]);
    else if (argv[i] === '--expect') args.expect.push(argv[++i]);
    else if (!args.html) args.html = argv[i];
    else throw new Error(`unexpected argument ${argv[i]}`);
  }
  if (!args.html) throw new Error('usage: report_browser_test.js REPORT.html [--screenshot OUT.png]');
  return args;
}

async function main() {
  const args = parse_args(process.argv.slice(2));
  const html = path.resolve(args.html);
  const failures = [];
  const user_data_dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apod-browser-test-'));
  const context = await chromium.launchPersistentContext(user_data_dir, {
    executablePath: process.env.APOD_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1280, height: 900 },
  });
  try {
    const page = context.pages()[0] || await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') failures.push(`console error: ${message.text()}`);
      if (message.type() === 'warning') failures.push(`console warning: ${message.text()}`);
    });
    page.on('pageerror', (error) => failures.push(`page error: ${error.message}`));
    page.on('dialog', (dialog) => {
      failures.push(`a dialog opened (${dialog.type()}: ${dialog.message()})`);
      dialog.dismiss();
    });
    page.on('request', (request) => {
      const url = request.url();
      if (!ALLOWED_SCHEMES.some((scheme) => url.startsWith(scheme)))
        failures.push(`request to ${url}`);
    });

    await page.goto(pathToFileURL(html).href, { waitUntil: 'load' });
    try {
      await page.waitForFunction(() => document.body.hasAttribute('data-charts'), null,
                                 { timeout: 60000 });
    } catch (error) {
      failures.push(`the charts never finished: ${error.message.split('\n')[0]}`);
    }
    const result = await page.evaluate(([selector, expected]) => {
      const charts = Array.from(document.querySelectorAll('.chart-canvas')).map((canvas) => ({
        id: canvas.id,
        rendered: canvas.getAttribute('data-rendered'),
        marks: canvas.querySelectorAll(selector).length,
        text: canvas.getAttribute('data-rendered') === 'error' ? canvas.textContent : '',
      }));
      return {
        status: document.body.getAttribute('data-charts'),
        charts,
        specs: document.querySelectorAll('script[type="application/json"][data-chart-for]').length,
        pwned: typeof window.__apod_pwned !== 'undefined',
        sections: document.querySelectorAll('section.experiment').length,
      };
    }, [MARK_SELECTOR, args.expect]);

    if (result.status !== 'done') failures.push(`charts finished with status "${result.status}"`);
    if (result.charts.length !== result.specs)
      failures.push(`${result.specs} chart specs but ${result.charts.length} chart containers`);
    for (const chart of result.charts) {
      if (chart.rendered !== 'true') failures.push(`${chart.id} not rendered: ${chart.text}`);
      else if (chart.marks === 0) failures.push(`${chart.id} drew no marks`);
    }
    if (result.pwned) failures.push('a script injected through the data ran (window.__apod_pwned is set)');

    failures.push(...await page_checks.first_screen(page));
    const on_demand = await page_checks.on_demand_charts(page, args.open_rows, MARK_SELECTOR);
    failures.push(...on_demand.failures);
    failures.push(...await page_checks.chart_text(page));
    // Expected elements, the history's charts drawn on demand included.
    const missing = await page.evaluate((expected) =>
      expected.filter((css) => document.querySelectorAll(css).length === 0), args.expect);
    for (const css of missing) failures.push(`nothing matches ${css}`);

    if (args.screenshot) await page.screenshot({ path: args.screenshot, fullPage: true });
    console.log(`report: ${html}`);
    console.log(`experiment sections: ${result.sections}; charts: ${result.charts.length} ` +
                `(${result.charts.map((c) => `${c.id}: ${c.marks} marks`).join(', ')}); ` +
                `history rows: ${on_demand.rows}, ${on_demand.opened} opened and drawn`);
  } finally {
    await context.close();
    fs.rmSync(user_data_dir, { recursive: true, force: true });
  }

  if (failures.length) {
    console.log(`FAIL: ${failures.length} problem(s)`);
    for (const failure of failures) console.log(`  - ${failure}`);
    process.exit(1);
  }
  console.log('PASS: every chart drew marks; no console errors or warnings, no network requests, ' +
              'no injected script ran; first screen first, no legend over the series limit, no ' +
              'truncated label');
}

main().catch((error) => {
  console.log(`FAIL: ${error.stack || error}`);
  process.exit(1);
});
