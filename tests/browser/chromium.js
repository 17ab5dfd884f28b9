// The system Chromium, headless, in a fresh profile that is removed on close: what the page
// tools (screenshot.js, draw_time.js) open. Never downloads a browser (APOD_CHROMIUM overrides
// /usr/bin/chromium).
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const { chromium } = require('playwright-core');

async function open_browser(prefix, viewport) {
  const user_data_dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const context = await chromium.launchPersistentContext(user_data_dir, {
    executablePath: process.env.APOD_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport,
  });
  return {
    context,
    close: async () => {
      await context.close();
      fs.rmSync(user_data_dir, { recursive: true, force: true });
    },
  };
}

module.exports = { open_browser };
