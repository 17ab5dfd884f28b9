#!/usr/bin/env node
// Opens an apod report in headless Chromium and fails unless it draws every chart with no
// console error, no request beyond file:/data:/blob:/about:, and no injected script running.
// Usage: node report_browser_test.js REPORT.html [--screenshot OUT.png] [--expect SELECTOR]...
//        [--open-rows N]
// Each --expect selector must match at least one element (a section the report must have).
// Page-level checks (page_checks.js): no console warning (Vega warns there), the first screen
// first, no legend over the series limit, no truncated label, and the history's charts drawn on
// demand for up to N rows (default 12), no two labels of one chart on top of each other, and
// experiments' tables folded and, opened, as wide as the page at most, and the contents sticky.
// Run through run_browser_test.sh, which skips (exit 77) where Chromium or playwright-core is
// missing. Never downloads a browser: it drives the system Chromium.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const { pathToFileURL } = require('url');
const { chromium } = require('playwright-core');
const page_checks = require('./page_checks');
const history_checks = require('./history_checks');

const ALLOWED_SCHEMES = ['file:', 'data:', 'blob:', 'about:'];
// Data marks only: axes, legends and the theoretical-limit rule and label are drawn whatever the
// data, so a chart counts as drawn when its line, symbol, bar or area groups hold a shape.
const MARK_SELECTOR = ['line', 'symbol', 'rect', 'area', 'arc', 'trail']
  .map((type) => `.mark-${type}.role-mark path`).join(', ');

// report/charts/chart.hpp's max_series: no legend may list more series than a reader can tell apart.
const MAX_SERIES = 10;

// Runs in the page: what a reader of one chart could not read. A legend with more entries than
// the limit (or cut short by Vega, '…N entries'), a label or title Vega truncated with an
// ellipsis (its labelLimit), and axis labels drawn on top of each other.
function chart_problems(canvas, limit) {
  const problems = [];
  for (const legend of canvas.querySelectorAll('.role-legend')) {
    const entries = legend.querySelectorAll('.role-legend-label text').length;
    if (entries > limit) problems.push(`a legend lists ${entries} entries (limit ${limit})`);
  }
  const texts = canvas.querySelectorAll(
    '.role-axis-label text, .role-axis-title text, .role-legend-label text, ' +
    '.role-legend-title text, .role-column-header text, .role-row-header text');
  for (const text of texts)
    if (text.textContent.includes('\u2026')) problems.push(`truncated text "${text.textContent}"`);
  for (const axis of canvas.querySelectorAll('.role-axis-label')) {
    const labels = Array.from(axis.querySelectorAll('text'))
      .filter((t) => t.getAttribute('opacity') !== '0' && t.textContent !== '')
      .map((t) => {
        const rotation = /rotate\((-?[0-9.]+)\)/.exec(t.getAttribute('transform') || '');
        return { box: t.getBoundingClientRect(), angle: rotation ? Number(rotation[1]) : 0,
                 size: parseFloat(t.getAttribute('font-size')) || 11, text: t.textContent };
      });
    for (let i = 0; i < labels.length; i++)
      for (let j = i + 1; j < labels.length; j++) {
        const a = labels[i], b = labels[j];
        let overlap;
        if (a.angle === 0 && b.angle === 0) {
          overlap = a.box.left < b.box.right - 1 && b.box.left < a.box.right - 1 &&
                    a.box.top < b.box.bottom - 1 && b.box.top < a.box.bottom - 1;
        } else {
          // Turned labels run parallel: they clear each other when their anchors, which sit
          // along the axis, are a line's height apart across the text's direction.
          const along = Math.abs(a.box.right - b.box.right) + Math.abs(a.box.top - b.box.top);
          overlap = along * Math.abs(Math.sin(a.angle * Math.PI / 180)) < 0.8 * a.size;
        }
        if (overlap) problems.push(`axis labels "${a.text}" and "${b.text}" overlap`);
      }
  }
  return problems;
}

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
      // Vega and Vega-Lite report what they could not draw as warnings (a dropped encoding, an
      // unknown scale type, a legend cut short): a chart with a warning is a broken chart.
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
    // The checks run in the page (CDP evaluation is not subject to the page's CSP).
    await page.evaluate(`window.__apod_chart_problems = ${chart_problems.toString()};`);
    const result = await page.evaluate(([selector, expected, limit]) => {
      const charts = Array.from(document.querySelectorAll('.chart-canvas')).map((canvas) => ({
        id: canvas.id + ((s) => (s ? ` (#${s.id})` : ''))(canvas.closest('section[id]')),
        rendered: canvas.getAttribute('data-rendered'),
        marks: canvas.querySelectorAll(selector).length,
        text: canvas.getAttribute('data-rendered') === 'error' ? canvas.textContent : '',
        problems: window.__apod_chart_problems(canvas, limit),
      }));
      return {
        status: document.body.getAttribute('data-charts'),
        charts,
        specs: document.querySelectorAll('script[type="application/json"][data-chart-for]').length,
        pwned: typeof window.__apod_pwned !== 'undefined',
        sections: document.querySelectorAll('section.experiment').length,
      };
    }, [MARK_SELECTOR, args.expect, MAX_SERIES]);

    if (result.status !== 'done') failures.push(`charts finished with status "${result.status}"`);
    if (result.charts.length !== result.specs)
      failures.push(`${result.specs} chart specs but ${result.charts.length} chart containers`);
    for (const chart of result.charts) {
      if (chart.rendered !== 'true') failures.push(`${chart.id} not rendered: ${chart.text}`);
      else if (chart.marks === 0) failures.push(`${chart.id} drew no marks`);
      for (const problem of chart.problems) failures.push(`${chart.id}: ${problem}`);
    }
    if (result.pwned) failures.push('a script injected through the data ran (window.__apod_pwned is set)');

    failures.push(...await page_checks.first_screen(page));
    const sparklines = await history_checks.sparklines(page); // before any row is opened
    failures.push(...sparklines.failures);
    const on_demand = await page_checks.on_demand_charts(page, args.open_rows, MARK_SELECTOR);
    failures.push(...on_demand.failures);
    failures.push(...await page_checks.chart_text(page));
    failures.push(...await page_checks.label_overlaps(page));
    failures.push(...await page_checks.tables_fit(page));
    failures.push(...await page_checks.contents_sticky(page));
    // Expected elements, the history's charts drawn on demand included.
    const missing = await page.evaluate((expected) =>
      expected.filter((css) => document.querySelectorAll(css).length === 0), args.expect);
    for (const css of missing) failures.push(`nothing matches ${css}`);

    if (args.screenshot) await page.screenshot({ path: args.screenshot, fullPage: true });
    console.log(`report: ${html}`);
    console.log(`experiment sections: ${result.sections}; charts: ${result.charts.length} ` +
                `(${result.charts.map((c) => `${c.id}: ${c.marks} marks`).join(', ')}); ` +
                `history rows: ${on_demand.rows}, ${on_demand.opened} opened and drawn, ` +
                `${sparklines.drawn} sparklines drawn when seen`);
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
              'truncated label, no overlapping chart labels, tables folded and no wider than the page, ' +
              'contents sticky');
}

main().catch((error) => {
  console.log(`FAIL: ${error.stack || error}`);
  process.exit(1);
});
