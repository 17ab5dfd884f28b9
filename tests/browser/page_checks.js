// Page-level checks of a rendered apod report, run by report_browser_test.js once every chart is
// drawn (the chart-by-chart checks are beside them there). Each returns a list of failures:
// - the first screen is at the top of the page, before the table of contents;
// - no chart has a legend longer than the page's series limit (body[data-series-limit]), and no
//   legend says it left entries out;
// - no axis or legend label is truncated (Vega ends a label cut at its labelLimit with "…");
// - the history's charts drawn on demand open, draw marks and log nothing (up to `max_rows`);
// - no two words a chart draws (text marks: limits, models, published figures, levels) overlap;
// - an experiment's tables start folded and, opened, fit the page's width (no sideways scroll);
// - from 1100 px the table of contents stays at the top of the window (sticky).
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

// Words drawn on top of each other in one chart (issue 25: the roofline's balance labels at the
// ridge, 'DRAM' over '800 cycles'). Every text mark of a chart (Vega's .mark-text groups: rule
// labels, level names, notes) is measured on screen; two whose boxes intersect by more than a
// pixel each way fail. Axis tick labels are left out: Vega hides those that would touch
// (labelSeparation, report/charts/chart.cpp), and report_browser_test.js checks them apart.
async function label_overlaps(page) {
  return page.evaluate(() => {
    const failures = [];
    document.querySelectorAll('.chart-canvas').forEach((canvas) => {
      const section = canvas.closest('section[id]');
      const name = canvas.id + (section ? ` (#${section.id})` : '');
      const labels = Array.from(canvas.querySelectorAll('.mark-text.role-mark text'))
        .filter((t) => t.textContent.trim() !== '' && t.getAttribute('opacity') !== '0' &&
                       getComputedStyle(t).visibility !== 'hidden')
        .map((t) => ({ box: t.getBoundingClientRect(), text: t.textContent.trim() }))
        .filter((l) => l.box.width > 0 && l.box.height > 0);
      for (let i = 0; i < labels.length; i++)
        for (let j = i + 1; j < labels.length; j++) {
          const a = labels[i].box, b = labels[j].box;
          if (a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 &&
              b.top < a.bottom - 1)
            failures.push(`${name}: the labels "${labels[i].text}" and "${labels[j].text}" ` +
                          'overlap');
        }
    });
    return failures;
  });
}

// Each experiment's value table starts folded; opened, every table of the section fits its box at
// the test's 1280 px window (issue 25: 10 of the 12-run page's tables scrolled sideways).
async function tables_fit(page) {
  return page.evaluate(async () => {
    const failures = [];
    let measured = 0;
    for (const section of document.querySelectorAll('section.experiment')) {
      const folded = Array.from(section.querySelectorAll('details.values'));
      folded.forEach((details) => {
        if (details.open && details.querySelector('table.values'))
          failures.push(`#${section.id}: its value table starts open`);
      });
      const was = folded.map((d) => d.open);
      folded.forEach((d) => { d.open = true; });
      // A packed table (report/pack.hpp) is put in place by page.js once its details opens.
      for (let tries = 0; tries < 200 &&
           section.querySelector('details.values > script[data-packed]'); tries++)
        await new Promise((resolve) => setTimeout(resolve, 10));
      if (section.querySelector('details.values > script[data-packed]'))
        failures.push(`#${section.id}: a packed value table was not unpacked when opened`);
      section.querySelectorAll('.table-wrap').forEach((wrap) => {
        measured++;
        if (wrap.scrollWidth > wrap.clientWidth + 1)
          failures.push(`#${section.id}: a table ${wrap.scrollWidth}px wide scrolls sideways ` +
                        `in ${wrap.clientWidth}px`);
      });
      folded.forEach((d, i) => { d.open = was[i]; });
    }
    if (document.querySelector('section.experiment') && measured === 0)
      failures.push('no value table of an experiment could be measured');
    return failures;
  });
}

// The contents follow the reader down a long page (issue 25: a one-run page of many screens had
// no way back to them): position sticky at the top from 1100 px.
async function contents_sticky(page) {
  return page.evaluate(() => {
    const contents = document.querySelector('#contents');
    if (!contents || window.innerWidth < 1100) return [];
    const style = getComputedStyle(contents);
    return style.position === 'sticky' && style.top === '0px'
      ? [] : [`the contents are not sticky at the top (position ${style.position}, top ${style.top})`];
  });
}

module.exports = { first_screen, chart_text, on_demand_charts, label_overlaps, tables_fit,
                   contents_sticky };
