// The history's sparklines in the browser (issue 25), run by report_browser_test.js before it
// opens any row. The page carries no drawing for a row (tests/report/test_history.cpp checks the
// HTML); templates/page.js draws a row's sparkline when the row is seen. Fails unless
// - a row in a folded group has no sparkline until it is seen, and gets one once its group is
//   opened and it is scrolled into view (each model's first group);
// - every row scrolled into view gets its sparkline, and no line of it crosses a gap's rule (where
//   the page has gaps: the committed runs' page has, the fixtures' nightly runs have none);
// - every sparkline has the same fixed y domain, and draws its values on it: a row's drawn height
//   is its values' range on that scale (an auto-scaled row would fill the height whatever its
//   wobble), checked on two rows whose wobbles differ at least threefold.
'use strict';

async function sparklines(page) {
  return page.evaluate(async () => {
    const failures = [];
    const rows = Array.from(document.querySelectorAll('#history details.figure-row'));
    if (!rows.length) return { failures, drawn: 0 };
    const settle = () => new Promise((resolve) =>
      requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 20))));
    const drawn_in = async (row) => {
      row.scrollIntoView({ block: 'center' });
      for (let i = 0; i < 50 && !row.querySelector(':scope > summary > svg.spark'); i++) await settle();
      return row.querySelector(':scope > summary > svg.spark');
    };

    // Each model's first folded group: its rows are drawn only once it is opened and seen.
    const groups = Array.from(document.querySelectorAll('#history .history-model'))
      .map((model) => model.querySelector('details.figure-group:not([open])')).filter(Boolean);
    for (const group of groups) {
      const folded = group.querySelector('details.figure-row:not([open])');
      if (!folded) continue;
      if (folded.querySelector('svg.spark'))
        failures.push('a row in a folded group has its sparkline before it was seen');
      group.open = true;
      if (!await drawn_in(folded))
        failures.push('a row of an opened group scrolled into view got no sparkline');
    }
    const seen = rows.filter((row) => !row.closest('details.figure-group:not([open])'))
      .slice(0, 120);
    const svgs = [];
    for (const row of seen) {
      const svg = await drawn_in(row);
      if (!svg) failures.push(`history row "${row.querySelector('summary > b').textContent}" ` +
                              'scrolled into view got no sparkline');
      else svgs.push(svg);
    }

    // No line across a gap: every polyline lies between two of its sparkline's gap rules.
    let gaps_seen = 0;
    for (const svg of svgs) {
      const gaps = Array.from(svg.querySelectorAll('line.gap')).map((g) => Number(g.getAttribute('x1')));
      gaps_seen += gaps.length;
      svg.querySelectorAll('polyline').forEach((line) => {
        const xs = line.getAttribute('points').split(' ').map((xy) => Number(xy.split(',')[0]));
        const left = Math.min(...xs), right = Math.max(...xs);
        if (gaps.some((x) => left < x && x < right))
          failures.push(`a sparkline's line crosses a gap (${left}..${right})`);
      });
    }
    const domains = new Set(svgs.map((svg) => svg.getAttribute('data-domain')));
    if (domains.size !== 1)
      failures.push(`the sparklines have ${domains.size} y domains: ${Array.from(domains)}`);
    // On the fixed scale, a row's lines span (high - low) / (domain width) of the plotting height.
    const measured = [];
    for (const svg of svgs) {
      const [d0, d1] = svg.getAttribute('data-domain').split(' ').map(Number);
      const [y0, y1] = svg.getAttribute('data-y-range').split(' ').map(Number);
      const [low, high] = svg.getAttribute('data-extent').split(' ').map(Number);
      const ys = [];
      svg.querySelectorAll('polyline').forEach((line) => line.getAttribute('points').split(' ')
        .forEach((xy) => ys.push(Number(xy.split(',')[1]))));
      svg.querySelectorAll('circle').forEach((dot) => ys.push(Number(dot.getAttribute('cy'))));
      if (ys.length < 2 || low < d0 || high > d1) continue; // one run, or clipped at the edge
      const expected = (high - low) / (d1 - d0) * Math.abs(y0 - y1);
      const drawn = Math.max(...ys) - Math.min(...ys);
      if (Math.abs(drawn - expected) > 0.25)
        failures.push(`a sparkline spans ${drawn.toFixed(1)} px where its values ` +
                      `(${low}..${high}) on the fixed scale span ${expected.toFixed(1)} px`);
      measured.push({ wobble: high - low, drawn });
    }
    measured.sort((a, b) => a.wobble - b.wobble);
    const small = measured.find((m) => m.wobble > 0);
    const large = measured[measured.length - 1];
    if (!small || !large || large.wobble < 3 * small.wobble)
      failures.push('no two sparklines with wobbles threefold apart to compare: ' +
                    measured.map((m) => m.wobble.toFixed(4)).join(' '));
    else if (large.drawn < 2 * small.drawn)
      failures.push(`a ${(100 * large.wobble).toFixed(2)} % wobble is drawn ${large.drawn} px ` +
                    `high, a ${(100 * small.wobble).toFixed(2)} % one ${small.drawn} px`);
    window.scrollTo(0, 0);
    return { failures, drawn: svgs.length, gaps: gaps_seen };
  });
}

module.exports = { sparklines };
