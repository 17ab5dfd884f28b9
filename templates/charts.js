// Draws every chart of an apod report. Each chart's complete Vega-Lite spec, data included,
// sits in a JSON script block (type application/json, data-chart-for="ID") built by
// report/charts/; this script only hands it to vegaEmbed. Charts are drawn one after another
// so the page stays responsive with many of them. When all are done, <body data-charts> says
// "done" (or "failed"): tests/browser waits for that.
(function () {
  'use strict';
  // A packed block (report/pack.hpp: `apod report` packs the Vega libraries, the chart specs,
  // the history's data and folded value tables) is base64 of zlib-deflated text; the browser's
  // DecompressionStream inflates it. A block without data-packed is read as it is.
  function unpack(element) {
    var text = element.textContent;
    if (element.getAttribute('data-packed') !== 'deflate-base64') return Promise.resolve(text);
    var binary = atob(text.trim());
    var bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate'));
    return new Response(stream).text();
  }
  window.apodUnpack = unpack;
  // The Vega libraries: inline scripts already ran; packed ones are inflated, then run in their
  // order (global eval, which the page's CSP allows for Vega's own expressions).
  var packed_libraries = Array.prototype.slice.call(document.querySelectorAll('script[data-library]'));
  window.apodLibraries = Promise.all(packed_libraries.map(unpack)).then(function (codes) {
    codes.forEach(function (code) { (0, eval)(code); });
  });
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
    // actions:false: no export menu, no links to the Vega editor; mode is given so that no
    // $schema needs to be read.
    unpack(block)
      .then(function (text) {
        return vegaEmbed(target, JSON.parse(text),
                         { renderer: 'svg', actions: false, mode: 'vega-lite' });
      })
      .then(function () { target.setAttribute('data-rendered', 'true'); })
      .catch(function (error) { show_error(target, error.message); console.error(error); })
      .then(next);
  }

  // Folded value tables would be missing from a printout.
  window.addEventListener('beforeprint', function () {
    document.querySelectorAll('details').forEach(function (d) { d.open = true; });
  });

  window.apodLibraries.then(function () { draw(0); }, function (error) {
    console.error(error);
    document.body.setAttribute('data-charts', 'failed');
  });
})();
