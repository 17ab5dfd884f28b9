// The page's behaviour beyond the charts charts.js draws at load: tables sorted by any column, and
// the history's sparklines and full charts, drawn on demand from the section's one data block
// (script[data-history], built by report/charts/history.cpp).
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

  function make_sortable(root) {
    root.querySelectorAll('table.sortable').forEach(make_table_sortable);
  }

  function make_table_sortable(table) {
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
  }
  make_sortable(document);

  // ---- Folded value tables packed by report/pack.hpp: a <details class="values"> holds its
  // table as a packed text/html block until it is first opened (or is open at load).
  function unfold(details) {
    var block = details.querySelector(':scope > script[type="text/html"][data-packed]');
    if (!block) return Promise.resolve();
    return window.apodUnpack(block).then(function (html) {
      if (!block.parentNode) return; // another toggle got there first
      var holder = document.createElement('div');
      holder.innerHTML = html;
      var nodes = Array.prototype.slice.call(holder.childNodes);
      nodes.forEach(function (node) { details.insertBefore(node, block); });
      block.remove();
      make_sortable(details);
      details.setAttribute('data-unfolded', '');
      if (details.matches('details.figure-group')) observe_rows(index_rows());
    });
  }
  // The history's folded groups of rows are packed the same way (details.figure-group).
  var folded = 'details.values, details.figure-group';
  var unfolded_at_load = Array.prototype.map.call(
    document.querySelectorAll('details.values[open]'), unfold);
  document.addEventListener('toggle', function (event) {
    if (event.target.open && event.target.matches(folded)) unfold(event.target);
  }, true);
  // A printout shows every table: charts.js opens every details element before printing.
  window.addEventListener('beforeprint', function () {
    document.querySelectorAll(folded).forEach(unfold);
  });

  // ---- The history (report/charts/history.hpp), drawn on demand from the section's one data
  // block (script[data-history]): {base: the full charts' Vega-Lite spec, models: per model its
  // runs in start order, machines, gaps, date ticks, baseline and candidate, rows: per figure row,
  // in page order, its coded values}. The HTML has each row's words and no drawing: a row's
  // sparkline is drawn when the row scrolls into view (or its folded group opens and it does),
  // its full chart when it is opened.
  var history_block = document.querySelector('script[data-history]');
  var history_data = null; // set from the block, inflated (start_history)
  var rows_of = new Map(); // details.figure-row -> { row, model }
  // Rows present in the page (a folded group's rows arrive when it is opened: unfold), each
  // found in the data block by its data-row. Returns the rows it added.
  function index_rows() {
    var added = [];
    if (!history_data) return added;
    document.querySelectorAll('#history .history-model').forEach(function (block, k) {
      block.querySelectorAll('details.figure-row[data-row]').forEach(function (details) {
        if (rows_of.has(details)) return;
        rows_of.set(details, { row: history_data.rows[Number(details.getAttribute('data-row'))],
                               model: history_data.models[k], details: details });
        added.push(details);
      });
    });
    return added;
  }

  // A coded list ("3,-1,,_4,0" from ordinal `first`: "" one run without a value, "_k" k runs) as
  // {ordinal: integer}.
  function decode(text, first) {
    var out = {};
    if (typeof text !== 'string') return out;
    var ordinal = first;
    text.split(',').forEach(function (token) {
      if (token === '') ordinal += 1;
      else if (token.charAt(0) === '_') ordinal += parseInt(token.slice(1), 10);
      else out[ordinal++] = Number(token);
    });
    return out;
  }

  // A row's values: [{o, m, lo, hi, rel}] in run order; rel is the change against the reference.
  function values_of(row) {
    var unit = history_data.unit;
    var first = row.a || 1;
    var v = decode(row.v, first), l = decode(row.l, first), h = decode(row.h, first);
    var log = row.sc === undefined;
    var value = function (code, from) {
      return log ? from * Math.exp(code * unit) : from + code * unit * row.sc;
    };
    return Object.keys(v).map(Number).sort(function (a, b) { return a - b; }).map(function (o) {
      var m = value(v[o], row.ref);
      var banded = (l[o] || h[o]) && l[o] !== undefined;
      return { o: o, m: m, rel: log ? Math.exp(v[o] * unit) - 1 : v[o] * unit,
               lo: banded ? value(-l[o], m) : null, hi: banded ? value(h[o], m) : null };
    });
  }

  // Which stretch between gaps a run is in: no line is drawn across a gap.
  function segment_of(model, ordinal) {
    var segment = 0;
    model.gaps.forEach(function (gap) { if (gap[0] < ordinal) segment += 1; });
    return segment;
  }

  function line_key(entry, ordinal) {
    var machine = entry.row.b ? 'all' : entry.model.runs[ordinal - 1][4];
    return machine + '/' + segment_of(entry.model, ordinal);
  }

  // The row's verdict, read from its own words (the data block does not repeat them): {text,
  // colour} or null.
  function verdict_of(entry) {
    var span = entry.details.querySelector(':scope > summary > .fig-verdict');
    if (!span || !entry.model.candidate) return null;
    var palette = history_data.palette;
    return { text: span.textContent,
             colour: span.classList.contains('verdict-regression') ? palette.alarm
               : span.classList.contains('verdict-faster') ? palette.good : palette.context };
  }

  // The sparkline: x the run's ordinal among its model's runs (so one model's rows line up), y
  // the change against the row's reference on the same fixed scale for every row
  // (history_data.spark_domain), the noise band behind, a triangle on the edge for a run beyond it.
  var SPARK_W = 160, SPARK_H = 28, SPARK_PAD = 3;
  function sparkline_svg(entry) {
    var row = entry.row, model = entry.model, runs = model.runs.length;
    var domain = history_data.spark_domain, palette = history_data.palette;
    var x = function (o) {
      return runs > 1 ? SPARK_PAD + (o - 1) / (runs - 1) * (SPARK_W - 2 * SPARK_PAD) : SPARK_W / 2;
    };
    var y = function (rel) {
      var at = SPARK_H / 2 - rel / domain * (SPARK_H / 2 - SPARK_PAD);
      return Math.min(SPARK_H - SPARK_PAD, Math.max(SPARK_PAD, at));
    };
    var f = function (n) { return n.toFixed(1); };
    var points = values_of(row);
    var low = Infinity, high = -Infinity;
    points.forEach(function (p) { low = Math.min(low, p.rel); high = Math.max(high, p.rel); });
    var parts = [];
    if (row.n) {
      var band = Math.exp(row.n * history_data.unit) - 1;
      var top = Math.max(0, SPARK_H / 2 - band / domain * (SPARK_H / 2 - SPARK_PAD));
      parts.push('<rect class="noise" x="0" width="' + SPARK_W + '" y="' + f(top) + '" height="' +
                 f(SPARK_H - 2 * top) + '" fill="' + palette.noise + '"/>');
    }
    parts.push('<line class="ref" x1="0" x2="' + SPARK_W + '" y1="' + f(y(0)) + '" y2="' +
               f(y(0)) + '" stroke="' + palette.context + '" stroke-width="0.5"/>');
    model.gaps.forEach(function (gap) {
      parts.push('<line class="gap" x1="' + f(x(gap[0] + 0.5)) + '" x2="' + f(x(gap[0] + 0.5)) +
                 '" y1="0" y2="' + SPARK_H + '" stroke="' + palette.context +
                 '" stroke-dasharray="1.5 1.5"><title>a pause of ' + gap[1] + '</title></line>');
    });
    if (model.baseline)
      parts.push('<line class="baseline" x1="' + f(x(model.baseline)) + '" x2="' +
                 f(x(model.baseline)) + '" y1="0" y2="' + SPARK_H + '" stroke="' +
                 palette.context + '" stroke-dasharray="2 2"/>');
    var lines = {}, order = [];
    points.forEach(function (p) {
      var key = line_key(entry, p.o);
      if (!lines[key]) { lines[key] = []; order.push(key); }
      lines[key].push(p);
    });
    order.forEach(function (key) {
      var line = lines[key];
      var colour = entry.row.b ? palette.context : model.machines[Number(key.split('/')[0])][1];
      if (line.length === 1)
        parts.push('<circle cx="' + f(x(line[0].o)) + '" cy="' + f(y(line[0].rel)) +
                   '" r="1.2" fill="' + colour + '"/>');
      else
        parts.push('<polyline points="' + line.map(function (p) {
          return f(x(p.o)) + ',' + f(y(p.rel));
        }).join(' ') + '" fill="none" stroke="' + colour + '" stroke-width="1.3"/>');
    });
    // Beyond the scale: a triangle on the edge, pointing out, in the line's colour (a change's
    // meaning is the verdict's to say, not the scale's).
    points.forEach(function (p) {
      if (Math.abs(p.rel) <= domain) return;
      var up = p.rel > 0, edge = up ? 0 : SPARK_H, tip = up ? 3.5 : -3.5;
      var colour = entry.row.b ? palette.context : model.machines[model.runs[p.o - 1][4]][1];
      parts.push('<polygon class="clip" points="' + f(x(p.o) - 2.5) + ',' + f(edge + tip) + ' ' +
                 f(x(p.o) + 2.5) + ',' + f(edge + tip) + ' ' + f(x(p.o)) + ',' + f(edge) +
                 '" fill="' + colour + '"/>');
    });
    (row.s || []).forEach(function (step) {
      parts.push('<line class="step" x1="' + f(x(step[0])) + '" x2="' + f(x(step[0])) +
                 '" y1="0" y2="' + SPARK_H + '" stroke="' + palette.alarm +
                 '" stroke-width="1.5"/>');
    });
    var verdict = verdict_of(entry);
    if (verdict)
      points.forEach(function (p) {
        if (p.o === model.candidate)
          parts.push('<circle class="verdict" cx="' + f(x(p.o)) + '" cy="' + f(y(p.rel)) +
                     '" r="2.8" fill="' + verdict.colour + '"/>');
      });
    var pct = function (r) { return (r >= 0 ? '+' : '−') + Math.abs(100 * r).toFixed(2) + ' %'; };
    return '<svg class="spark" viewBox="0 0 ' + SPARK_W + ' ' + SPARK_H + '" width="' + SPARK_W +
      '" height="' + SPARK_H + '" data-domain="' + (-domain) + ' ' + domain + '" data-y-range="' +
      (SPARK_H - SPARK_PAD) + ' ' + SPARK_PAD + '" data-extent="' +
      low.toFixed(5) + ' ' + high.toFixed(5) + '"><title>' + points.length + ' runs in start ' +
      'order; change against the reference from ' + pct(low) + ' to ' + pct(high) +
      ', on a fixed ±' + (100 * domain) + ' % scale' + (row.n ? '; grey: the noise' : '') +
      '</title>' + parts.join('') + '</svg>';
  }

  // The sparkline goes after the row's name, into the summary's second column (report.css).
  function draw_sparkline(details) {
    var entry = rows_of.get(details);
    if (!entry || entry.drawn) return;
    entry.drawn = true;
    var name = details.querySelector(':scope > summary > b');
    try {
      name.insertAdjacentHTML('afterend', sparkline_svg(entry));
    } catch (error) {
      console.error(error);
    }
  }

  // Rows in a folded group are not laid out, so they intersect only once the group is open.
  // Each row's sparkline is drawn when the row comes into view.
  var row_observer = 'IntersectionObserver' in window
    ? new IntersectionObserver(function (entries) {
      entries.forEach(function (item) {
        if (!item.isIntersecting) return;
        row_observer.unobserve(item.target);
        draw_sparkline(item.target);
      });
    }, { rootMargin: '200px 0px' })
    : null;
  function observe_rows(rows) {
    rows.forEach(function (details) {
      if (row_observer) row_observer.observe(details);
      else draw_sparkline(details);
    });
  }

  // The full chart's spec: the shared base, this row's datasets, x the model's run order with a
  // few date labels (the first run of a date, never the same date twice).
  function chart_spec(entry) {
    var row = entry.row, model = entry.model, palette = history_data.palette;
    var spec = JSON.parse(JSON.stringify(history_data.base));
    var points = values_of(row).map(function (p) {
      var run = model.runs[p.o - 1], machine = model.machines[run[4]];
      return { o: p.o, m: p.m, lo: p.lo, hi: p.hi, rel: p.rel, line: line_key(entry, p.o),
               t: run[0], run: run[1], label: run[2], commit: run[3],
               machine: row.b ? 'median of a bucket of runs' : machine[0],
               colour: row.b ? palette.context : machine[1] };
    });
    spec.datasets.points = points;
    spec.datasets.band = points.filter(function (p) { return p.lo !== null && p.hi !== null; });
    spec.datasets.noise = [];
    if (row.n) {
      var noise = values_of({ ref: row.ref, sc: row.sc, a: 1, v: '0', l: String(row.n),
                              h: String(row.n) })[0];
      spec.datasets.noise = [{ o: 0.5, lo: noise.lo, hi: noise.hi },
                             { o: model.runs.length + 0.5, lo: noise.lo, hi: noise.hi }];
    }
    // A gap's label goes a line lower where the gap before it is too close for both to fit.
    var level = 0, close = Math.max(2, model.runs.length / 15);
    spec.datasets.gaps = model.gaps.map(function (g, i) {
      level = i > 0 && g[0] - model.gaps[i - 1][0] < close ? 1 - level : 0;
      return { o: g[0] + 0.5, text: g[1], y_px: 2 + 12 * level };
    });
    spec.datasets.steps = (row.s || []).map(function (s) { return { o: s[0], text: s[1] }; });
    spec.datasets.baseline = model.baseline ? [{ o: model.baseline, text: model.baseline_text }]
      : [];
    spec.datasets.verdict = [];
    var verdict = verdict_of(entry);
    if (verdict)
      points.forEach(function (p) {
        if (p.o === model.candidate)
          spec.datasets.verdict.push({ o: p.o, m: p.m, text: verdict.text,
                                       colour_of_verdict: verdict.colour });
      });
    // A layer with nothing to draw (no change point, no baseline) would only make Vega warn
    // about the empty extent of its fields.
    spec.layer = spec.layer.filter(function (layer) {
      return spec.datasets[layer.data.name].length > 0;
    });
    var ticks = model.ticks;
    var label = ticks.map(function (t) {
      return 'datum.value === ' + t[0] + ' ? ' + JSON.stringify(t[1]);
    }).concat(["''"]).join(' : ');
    spec.layer.forEach(function (layer) {
      var x = layer.encoding.x, y = layer.encoding.y;
      x.scale.domain = [0.5, model.runs.length + 0.5];
      if (ticks.length) {
        x.axis.values = ticks.map(function (t) { return t[0]; });
        x.axis.labelExpr = label;
      } else {
        x.title = 'runs in start order';
      }
      if (y && y.field) y.title = history_data.titles[row.y];
    });
    return spec;
  }

  function draw_chart(details) {
    var entry = rows_of.get(details);
    if (!entry || details.querySelector(':scope > .on-demand')) return;
    var holder = document.createElement('div');
    holder.className = 'on-demand';
    var target = document.createElement('div');
    target.className = 'lazy-canvas';
    target.setAttribute('role', 'img');
    target.setAttribute('aria-label',
                        details.querySelector(':scope > summary > b').textContent + ' over time');
    holder.appendChild(target);
    details.appendChild(holder);
    target.setAttribute('data-rendered', 'pending');
    var spec;
    try {
      spec = chart_spec(entry);
    } catch (error) {
      target.setAttribute('data-rendered', 'error');
      target.textContent = 'This chart could not be drawn: ' + error;
      console.error(error);
      return;
    }
    // The libraries may still be inflating when a row is opened early (charts.js).
    window.apodLibraries
      .then(function () {
        return vegaEmbed(target, spec, { renderer: 'svg', actions: false, mode: 'vega-lite' });
      })
      .then(function () { target.setAttribute('data-rendered', 'true'); })
      .catch(function (error) {
        target.setAttribute('data-rendered', 'error');
        target.textContent = 'This chart could not be drawn: ' + error.message;
        console.error(error);
      });
  }

  // toggle does not bubble: listen in the capture phase.
  document.addEventListener('toggle', function (event) {
    if (event.target.open && event.target.classList.contains('figure-row')) {
      draw_sparkline(event.target);
      draw_chart(event.target);
    }
  }, true);

  var history_ready = !history_block ? Promise.resolve()
    : window.apodUnpack(history_block).then(function (text) {
      history_data = JSON.parse(text);
      observe_rows(index_rows());
    });
  Promise.all([history_ready].concat(unfolded_at_load)).then(function () {
    document.body.setAttribute('data-page', 'ready');
  }, function (error) {
    console.error(error);
    document.body.setAttribute('data-page', 'failed');
  });
})();
