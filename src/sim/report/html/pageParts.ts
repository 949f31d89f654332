/** The report page's look: readable text, wide tables that scroll, charts that keep their own size. */
export const pageStyle = `
body { font: 14px/1.5 Helvetica, Arial, sans-serif; color: #222; margin: 0; background: #fafafa; }
main { max-width: 1200px; margin: 0 auto; padding: 16px 32px 48px; background: white; }
h1 { font-size: 24px; } h2 { font-size: 19px; margin-top: 32px; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: 8px 0; display: block; overflow-x: auto; font-size: 13px; }
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: left; white-space: nowrap; }
th { background: #f3f3f3; } tr:nth-child(even) td { background: #fbfbfb; }
.chart { margin: 8px 0; overflow-x: auto; min-height: 40px; }
.chart-error { color: #b00; }
code { background: #f3f3f3; padding: 0 3px; }
`

/**
 * Draws every chart with vega's View API (the SVG renderer, so the page can be checked and printed), then
 * records on <body> how many charts drew and any error (data-charts-rendered, data-errors): what the
 * browser test reads back, and a reader's hint when a chart is missing.
 */
export const pageScript = `
(function () {
  var errors = [];
  window.addEventListener('error', function (event) { errors.push(String(event.message)); });
  var specs = JSON.parse(document.getElementById('chart-specs').textContent);
  var ids = Object.keys(specs);
  var rendered = 0;
  Promise.all(ids.map(function (id) {
    var element = document.getElementById(id);
    if (!element) { errors.push(id + ': no element for this chart'); return undefined; }
    try {
      var view = new vega.View(vega.parse(specs[id]), {renderer: 'svg', container: element, hover: true});
      return view.runAsync().then(function () { rendered++; }, function (error) { fail(element, id, error); });
    } catch (error) { fail(element, id, error); return undefined; }
  })).then(function () {
    document.body.setAttribute('data-charts-rendered', rendered + '/' + ids.length);
    document.body.setAttribute('data-errors', JSON.stringify(errors));
  });
  function fail(element, id, error) {
    errors.push(id + ': ' + (error && error.message ? error.message : String(error)));
    element.textContent = 'This chart could not be drawn: ' + (error && error.message ? error.message : String(error));
    element.className += ' chart-error';
    console.error(error);
  }
})();
`
