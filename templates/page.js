// The page's behaviour beyond the charts charts.js draws at load: tables sorted by any column, and
// the history's full charts, drawn when their row is opened. Each on-demand chart is a base spec
// the page carries once (script[data-timeline-base], built by report/charts/history.cpp) plus the
// figure's own datasets (script[data-chart-on-demand]) and the page's runs
// (script[data-timeline-runs]); this script only puts them together and hands them to vegaEmbed.
// When set up, <body data-page> says "ready": tests/browser waits for that.
(function () {
  'use strict';

  // ---- Sortable tables: a click on a column's header sorts by it, a second click reverses.
  // Cells sort by data-sort when they carry one, else by the number their text starts with;
  // text without a number sorts after numbers, alphabetically.
  function sort_key(cell) {
    if (!cell) return { number: NaN, text: '' };
    var sort = cell.getAttribute('data-sort');
    var text = cell.textContent.trim();
    var number = sort !== null ? parseFloat(sort)
      : parseFloat(text.replace(/^[−–]/, '-').replace(/[ ,](?=\d{3}\b)/g, ''));
    return { number: number, text: text };
  }

  function compare(a, b) {
    var a_number = !isNaN(a.number), b_number = !isNaN(b.number);
    if (a_number && b_number) return a.number - b.number;
    if (a_number !== b_number) return a_number ? -1 : 1;
    return a.text.localeCompare(b.text);
  }

  function sort_by(table, column, header) {
    var body = table.tBodies[0];
    var descending = header.getAttribute('aria-sort') === 'ascending';
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th) {
      th.removeAttribute('aria-sort');
    });
    header.setAttribute('aria-sort', descending ? 'descending' : 'ascending');
    var rows = Array.prototype.map.call(body.rows, function (row, index) {
      return { row: row, key: sort_key(row.cells[column]), index: index };
    });
    rows.sort(function (a, b) {
      var order = compare(a.key, b.key) * (descending ? -1 : 1);
      return order || a.index - b.index;
    });
    rows.forEach(function (item) { body.appendChild(item.row); });
  }

  document.querySelectorAll('table.sortable').forEach(function (table) {
    if (!table.tHead || !table.tBodies.length) return;
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (header, column) {
      header.classList.add('sort-header');
      header.tabIndex = 0;
      header.title = 'sort by ' + header.textContent;
      var sort = function () { sort_by(table, column, header); };
      header.addEventListener('click', sort);
      header.addEventListener('keydown', function (event) {
        if (event.key === 'Enter' || event.key === ' ') { event.preventDefault(); sort(); }
      });
    });
  });

  // ---- The history's charts, on demand.
  var runs_block = document.querySelector('script[data-timeline-runs]');
  var runs = runs_block ? JSON.parse(runs_block.textContent) : [];
  var bases = {};
  document.querySelectorAll('script[data-timeline-base]').forEach(function (block) {
    bases[block.getAttribute('data-timeline-base')] = block.textContent;
  });

  function draw_on_demand(details) {
    var holder = details.querySelector(':scope > .on-demand');
    if (!holder) return;
    var target = holder.querySelector('.lazy-canvas');
    var block = holder.querySelector('script[data-chart-on-demand]');
    if (!target || !block || target.hasAttribute('data-rendered')) return;
    target.setAttribute('data-rendered', 'pending');
    try {
      var figure = JSON.parse(block.textContent);
      var spec = JSON.parse(bases[figure.base]);
      spec.datasets.runs = runs;
      Object.keys(figure.datasets).forEach(function (name) {
        spec.datasets[name] = figure.datasets[name];
      });
      // A layer with nothing to draw (no change point, no baseline) would only make Vega warn
      // about the empty extent of its fields.
      spec.layer = spec.layer.filter(function (layer) {
        var name = layer.data && layer.data.name;
        return !name || name === 'points' || spec.datasets[name].length > 0;
      });
      spec.layer.forEach(function (layer) {
        var y = layer.encoding && layer.encoding.y;
        if (y && y.field) y.title = figure.y_title;
      });
    } catch (error) {
      target.setAttribute('data-rendered', 'error');
      target.textContent = 'This chart could not be drawn: ' + error;
      console.error(error);
      return;
    }
    vegaEmbed(target, spec, { renderer: 'svg', actions: false, mode: 'vega-lite' })
      .then(function () { target.setAttribute('data-rendered', 'true'); })
      .catch(function (error) {
        target.setAttribute('data-rendered', 'error');
        target.textContent = 'This chart could not be drawn: ' + error.message;
        console.error(error);
      });
  }

  // toggle does not bubble: listen in the capture phase.
  document.addEventListener('toggle', function (event) {
    if (event.target.open && event.target.classList.contains('figure-row'))
      draw_on_demand(event.target);
  }, true);

  document.body.setAttribute('data-page', 'ready');
})();
