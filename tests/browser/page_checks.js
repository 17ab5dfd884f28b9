// Page-level checks of a rendered apod report, run by report_browser_test.js once every chart is
// drawn (the chart-by-chart checks are beside them there). Each returns a list of failures:
// - the first screen is at the top of the page, before the table of contents;
// - no chart has a legend longer than the page's series limit (body[data-series-limit]), and no
//   legend says it left entries out;
// - no axis or legend label is truncated (Vega ends a label cut at its labelLimit with "…");
// - the history's charts drawn on demand open, draw marks and log nothing (up to `max_rows`).
'use strict';

async function first_screen(page) {
  return page.evaluate(() => {
    const failures = [];
    const glance = document.querySelector('#glance');
    const contents = document.querySelector('#contents');
    const runs = document.querySelectorAll('table.runs tbody tr').length;
    if (!runs) return failures; // a page without runs has no first screen
    if (!glance) failures.push('no first screen (#glance)');
    else if (glance.getBoundingClientRect().top > window.innerHeight / 2)
      failures.push(`the first screen starts ${glance.getBoundingClientRect().top}px down`);
    if (!contents) failures.push('no table of contents (#contents)');
    else if (glance && (glance.compareDocumentPosition(contents) &
                        Node.DOCUMENT_POSITION_FOLLOWING) === 0)
      failures.push('the table of contents comes before the first screen');
    return failures;
  });
}

// Legends, and labels cut short, in every drawn chart.
async function chart_text(page) {
  return page.evaluate(() => {
    const failures = [];
    const limit = Number(document.body.getAttribute('data-series-limit') || 12);
    const canvases = document.querySelectorAll('.chart-canvas, .lazy-canvas');
    canvases.forEach((canvas, index) => {
      const name = canvas.id || `on-demand chart ${index}`;
      canvas.querySelectorAll('.role-legend').forEach((legend) => {
        const labels = Array.from(legend.querySelectorAll('.role-legend-label text'));
        const symbols = legend.querySelectorAll('.role-legend-symbol path').length;
        if (symbols > limit || labels.length > limit)
          failures.push(`${name}: a legend of ${Math.max(symbols, labels.length)} entries ` +
                        `(the series limit is ${limit})`);
        for (const label of labels)
          if (/^…|entries$/.test(label.textContent.trim()))
            failures.push(`${name}: the legend left entries out ("${label.textContent}")`);
      });
      const texts = canvas.querySelectorAll(
        '.role-axis-label text, .role-axis-title text, .role-legend-label text, ' +
        '.role-legend-title text');
      for (const text of texts)
        if (text.textContent.trim().endsWith('…'))
          failures.push(`${name}: a truncated label "${text.textContent}"`);
    });
    return failures;
  });
}

// Opens the history's rows one by one and waits for each chart drawn on demand.
async function on_demand_charts(page, max_rows, mark_selector) {
  const rows = await page.evaluate(
    () => document.querySelectorAll('details.figure-row').length);
  const failures = [];
  const opened = Math.min(rows, max_rows);
  for (let i = 0; i < opened; i++) {
    await page.evaluate((index) => {
      document.querySelectorAll('details.figure-row')[index].open = true;
    }, i);
    try {
      await page.waitForFunction((index) => {
        const canvas = document.querySelectorAll('details.figure-row')[index]
          .querySelector('.lazy-canvas');
        const state = canvas && canvas.getAttribute('data-rendered');
        return state === 'true' || state === 'error';
      }, i, { timeout: 20000 });
    } catch (error) {
      failures.push(`history row ${i}: its chart never finished`);
      continue;
    }
    const result = await page.evaluate(([index, selector]) => {
      const canvas = document.querySelectorAll('details.figure-row')[index]
        .querySelector('.lazy-canvas');
      return { state: canvas.getAttribute('data-rendered'), text: canvas.textContent,
               marks: canvas.querySelectorAll(selector).length };
    }, [i, mark_selector]);
    if (result.state !== 'true') failures.push(`history row ${i}: ${result.text}`);
    else if (result.marks === 0) failures.push(`history row ${i}: its chart drew no marks`);
  }
  return { failures, opened, rows };
}

module.exports = { first_screen, chart_text, on_demand_charts };
