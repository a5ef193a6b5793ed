// The index of runs: a run's checkbox shows or hides its lines in every
// chart (the elements of data-run) and greys its row.
(function () {
  "use strict";
  var boxes = document.querySelectorAll("#pick input[data-run]");
  function apply() {
    boxes.forEach(function (b) {
      var on = b.checked;
      document.querySelectorAll('svg g[data-run="' + b.dataset.run + '"]').forEach(function (g) { g.style.display = on ? "" : "none"; });
      document.querySelectorAll('tr[data-run="' + b.dataset.run + '"]').forEach(function (r) { r.classList.toggle("off", !on); });
    });
  }
  boxes.forEach(function (b) { b.addEventListener("change", apply); });
  function all(on) { return function () { boxes.forEach(function (b) { b.checked = on; }); apply(); }; }
  var a = document.getElementById("all"), n = document.getElementById("none");
  if (a) a.addEventListener("click", all(true));
  if (n) n.addEventListener("click", all(false));
  apply();
})();
