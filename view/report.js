"use strict";
(function () {
  var $ = function (id) { return document.getElementById(id); };
  var rows = Array.prototype.slice.call(document.querySelectorAll("tr[data-key]"));
  // The filter keeps the table rows whose policy names contain the text.
  function update() {
    var q = $("q").value.toLowerCase(), n = 0;
    rows.forEach(function (tr) {
      var k = q === "" || tr.dataset.key.toLowerCase().indexOf(q) >= 0;
      tr.classList.toggle("hide", !k);
      if (k) n++;
    });
    $("count").textContent = n + " of " + rows.length + " rows";
  }
  $("q").addEventListener("input", update);
  // Hovering or focusing a chart point shows its numbers under the chart
  // and highlights its table row.
  Array.prototype.forEach.call(document.querySelectorAll(".pt"), function (g) {
    var tip = $("tip-" + g.dataset.row.split("-")[0]), tr = $(g.dataset.row);
    function on() { tip.textContent = g.dataset.tip; if (tr) tr.classList.add("hi"); }
    function off() { if (tr) tr.classList.remove("hi"); }
    g.addEventListener("mouseenter", on); g.addEventListener("focus", on);
    g.addEventListener("mouseleave", off); g.addEventListener("blur", off);
  });
  update();
})();
