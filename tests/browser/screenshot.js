#!/usr/bin/env node
// Takes a screenshot of a rendered apod report in headless Chromium, as a reader first sees it:
// the first screen (the viewport at the top of the page, after every chart is drawn), or with
// --full the whole page. ci/screenshots.sh uses it for the images in docs/; nothing is edited
// after. Never downloads a browser: it drives the system Chromium (APOD_CHROMIUM to override).
// Usage: node screenshot.js REPORT.html OUT.png [--width 1280] [--height 900] [--full]
//        [--scroll SELECTOR] (scroll that element to the top first)
'use strict';

const path = require('path');
const { pathToFileURL } = require('url');
const { open_browser } = require('./chromium');

function parse_args(argv) {
  const args = { html: null, out: null, width: 1280, height: 900, full: false, scroll: null };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--width') args.width = Number(argv[++i]);
    else if (argv[i] === '--height') args.height = Number(argv[++i]);
    else if (argv[i] === '--full') args.full = true;
    else if (argv[i] === '--scroll') args.scroll = argv[++i];
    else if (!args.html) args.html = argv[i];
    else if (!args.out) args.out = argv[i];
    else throw new Error(`unexpected argument ${argv[i]}`);
  }
  if (!args.html || !args.out) throw new Error('usage: screenshot.js REPORT.html OUT.png');
  return args;
}

async function main() {
  const args = parse_args(process.argv.slice(2));
  const browser = await open_browser('apod-screenshot-', { width: args.width, height: args.height });
  const context = browser.context;
  try {
    const page = context.pages()[0] || await context.newPage();
    await page.goto(pathToFileURL(path.resolve(args.html)).href, { waitUntil: 'load' });
    await page.waitForFunction(() => document.body.hasAttribute('data-charts'), null,
                               { timeout: 120000 });
    if (args.scroll)
      await page.evaluate((css) => { document.querySelector(css).scrollIntoView(); }, args.scroll);
    await page.screenshot({ path: args.out, fullPage: args.full });
    console.log(`wrote ${args.out}`);
  } finally {
    await browser.close();
  }
}

main().catch((error) => {
  console.log(`FAIL: ${error.stack || error}`);
  process.exit(1);
});
