/**
 * The report's only script, inlined into the page and allowed by its hash in the page's
 * Content-Security-Policy (so no other script can run, even if markup ever slipped through).
 * It never writes markup: it reads the run facts from the JSON data element, shows and hides
 * what is already on the page, and writes counts with `textContent`.
 *
 * Routing is the URL hash: `#run=<run id>` opens a run; `#<anchor id>` opens the run holding
 * that event or finding, scrolls it into view and highlights it; anything else is the summary.
 * Without the script every run is on the page and the anchors still work.
 */
export const VIEWER_SCRIPT = `
(function () {
  'use strict';
  var doc = document;
  var dataElement = doc.getElementById('report-data');
  var data = JSON.parse((dataElement && dataElement.textContent) || '{"runs":[]}');
  var summary = doc.getElementById('summary');
  var runs = Array.prototype.slice.call(doc.querySelectorAll('section.run'));
  var rows = Array.prototype.slice.call(doc.querySelectorAll('tr[data-run]'));
  var facts = {};
  // Run ids are looked up in the data, not in the page's attributes: the page spells out
  // control characters, the data keeps the id as the hash names it.
  var keys = Object.create(null);
  data.runs.forEach(function (run) { facts[run.key] = run; keys[run.id] = run.key; });
  var names = ['dimension', 'kind', 'outcome', 'state'];
  var controls = {};
  names.forEach(function (name) { controls[name] = doc.getElementById('filter-' + name); });
  var shown = doc.getElementById('shown');

  function matches(run) {
    var dimension = controls.dimension.value;
    var kind = controls.kind.value;
    var outcome = controls.outcome.value;
    var state = controls.state.value;
    if (dimension && run.failing.indexOf(dimension) < 0) return false;
    if (kind === '(none)') { if (run.kinds.length > 0) return false; }
    else if (kind && run.kinds.indexOf(kind) < 0) return false;
    if (outcome === 'pass' && !run.pass) return false;
    if (outcome === 'fail' && run.pass) return false;
    if (state && run.state !== state) return false;
    return true;
  }

  function filter() {
    var count = 0;
    rows.forEach(function (row) {
      var run = facts[row.getAttribute('data-run')];
      var visible = Boolean(run) && matches(run);
      row.hidden = !visible;
      if (visible) count++;
    });
    shown.textContent = count + ' of ' + rows.length + ' runs shown';
  }

  var highlighted = null;
  function route() {
    var hash = location.hash.slice(1);
    var run = null;
    var target = null;
    if (hash.indexOf('run=') === 0) {
      var id = null;
      try { id = decodeURIComponent(hash.slice(4)); } catch (error) { id = null; }
      var key = id === null ? undefined : keys[id];
      run = runs.filter(function (section) { return section.id === key; })[0] || null;
    } else if (hash) {
      target = doc.getElementById(hash);
      run = target ? target.closest('section.run') : null;
    }
    summary.hidden = run !== null;
    runs.forEach(function (section) { section.hidden = section !== run; });
    if (highlighted) highlighted.classList.remove('highlight');
    highlighted = null;
    if (run && target && target !== run) {
      target.classList.add('highlight');
      highlighted = target;
      target.scrollIntoView({ block: 'center' });
    } else {
      window.scrollTo(0, 0);
    }
  }

  names.forEach(function (name) { controls[name].addEventListener('change', filter); });
  window.addEventListener('hashchange', route);
  filter();
  route();
  doc.documentElement.setAttribute('data-viewer', 'ready');
})();
`;
