"use strict";
(function () {
  var list = document.getElementById("list");
  var items = Array.prototype.slice.call(list.children);
  var $ = function (id) { return document.getElementById(id); };
  function nums(s) { return s.split(",").map(Number); }
  // share is a policy's share of right episodes on a question; NaN when none is scored.
  function share(el, k) { return nums(el.dataset.c)[k] / nums(el.dataset.n)[k]; }
  function keep(el, show, a, b, q) {
    if (q && el.dataset.key.toLowerCase().indexOf(q) < 0) return false;
    if (show === "disagree") return el.dataset.dis === "1";
    if (show === "won") return share(el, a) > share(el, b);
    if (show === "lost") return share(el, a) < share(el, b);
    return true;
  }
  function update() {
    var show = $("show").value, a = +$("pa").value, b = +$("pb").value;
    var q = $("q").value.toLowerCase(), s = $("sort").value, n = 0;
    var sorted = items.slice();
    if (s !== "order") {
      var sign = s === "tok-desc" ? -1 : 1;
      sorted.sort(function (x, y) { return sign * (x.dataset.tok - y.dataset.tok) || x.dataset.i - y.dataset.i; });
    }
    sorted.forEach(function (el) {
      var k = keep(el, show, a, b, q);
      el.classList.toggle("hide", !k);
      if (k) n++;
      list.appendChild(el);
    });
    $("count").textContent = n + " of " + items.length + " questions";
  }
  if ($("pb").options.length > 1) $("pb").selectedIndex = 0;
  if ($("pa").options.length > 1) $("pa").selectedIndex = $("pa").options.length - 1;
  ["show", "pa", "pb", "q", "sort"].forEach(function (id) { $(id).addEventListener("input", update); });
  update();
})();
