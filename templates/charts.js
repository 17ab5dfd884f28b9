// Draws every chart of an apod report. Each chart's complete Vega-Lite spec, data included,
// sits in a JSON script block (type application/json, data-chart-for="ID") built by
// report/charts/; this script only hands it to vegaEmbed. Charts are drawn one after another
// so the page stays responsive with many of them. When all are done, <body data-charts> says
// "done" (or "failed"): tests/browser waits for that.
(function () {
  'use strict';
  var blocks = Array.prototype.slice.call(
    document.querySelectorAll('script[type="application/json"][data-chart-for]'));
  var failed = 0;
  // Vega and Vega-Lite warn on the console about what they could not draw; each warning names
  // the chart being drawn (charts are drawn one at a time), so a reader (and tests/browser) can
  // tell which.
  var drawing = null;
  var warn = console.warn.bind(console);
  console.warn = function () {
    var args = Array.prototype.slice.call(arguments);
    if (drawing) args.unshift(drawing + ':');
    warn.apply(null, args);
  };

  function show_error(target, message) {
    failed += 1;
    target.setAttribute('data-rendered', 'error');
    target.textContent = 'This chart could not be drawn: ' + message;
    target.classList.add('chart-error');
  }

  function draw(index) {
    if (index === blocks.length) {
      drawing = null;
      document.body.setAttribute('data-charts', failed ? 'failed' : 'done');
      return;
    }
    var block = blocks[index];
    var target = document.getElementById(block.getAttribute('data-chart-for'));
    drawing = target.id;
    var next = function () { setTimeout(function () { draw(index + 1); }, 0); };
    var spec;
    try {
      spec = JSON.parse(block.textContent);
    } catch (error) {
      show_error(target, String(error));
      console.error(error);
      next();
      return;
    }
    // actions:false: no export menu, no links to the Vega editor; mode is given so that no
    // $schema needs to be read.
    vegaEmbed(target, spec, { renderer: 'svg', actions: false, mode: 'vega-lite' })
      .then(function () { target.setAttribute('data-rendered', 'true'); })
      .catch(function (error) { show_error(target, error.message); console.error(error); })
      .then(next);
  }

  // Folded value tables would be missing from a printout.
  window.addEventListener('beforeprint', function () {
    document.querySelectorAll('details').forEach(function (d) { d.open = true; });
  });

  draw(0);
})();
