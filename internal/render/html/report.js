(function () {
  var rows = Array.prototype.slice.call(document.querySelectorAll('#table tbody tr'));
  var body = document.querySelector('#table tbody');
  var q = document.getElementById('q');
  var rule = document.getElementById('rule');
  var sev = document.getElementById('severity');
  var cluster = document.getElementById('cluster');
  var shown = document.getElementById('shown');
  function apply() {
    var text = q.value.toLowerCase();
    var n = 0;
    rows.forEach(function (r) {
      var ok = (!rule.value || r.dataset.rule === rule.value) &&
        (!sev.value || r.dataset.severity === sev.value) &&
        (!cluster || !cluster.value || r.dataset.cluster === cluster.value) &&
        (!text || r.textContent.toLowerCase().indexOf(text) >= 0);
      r.hidden = !ok;
      if (ok) { n++; }
    });
    shown.textContent = String(n);
  }
  [q, rule, sev, cluster].forEach(function (e) {
    if (e) { e.addEventListener('input', apply); e.addEventListener('change', apply); }
  });
  var order = {};
  Array.prototype.forEach.call(document.querySelectorAll('#table thead th'), function (th) {
    th.addEventListener('click', function () {
      var i = th.cellIndex;
      var dir = order[i] = -(order[i] || -1);
      rows.slice().sort(function (a, b) {
        return dir * a.cells[i].textContent.localeCompare(b.cells[i].textContent, undefined, { numeric: true });
      }).forEach(function (r) { body.appendChild(r); });
      th.setAttribute('aria-sort', dir > 0 ? 'ascending' : 'descending');
    });
  });
  var m = /rule=([A-Za-z0-9_-]+)/.exec(location.hash);
  if (m) { rule.value = m[1]; apply(); }
})();
