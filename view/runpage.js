// Redraws the smoothed curves as the slider moves: each chart's raw values
// (the JSON island chart-data) smoothed by the exponential moving average
// the slider sets, the start's bias removed (view's ema computes the
// same), mapped to the chart's pixels as view drew them.
(function () {
  "use strict";
  var island = document.getElementById("chart-data"), slider = document.getElementById("smooth");
  if (!island || !slider) return;
  var charts = JSON.parse(island.textContent), out = document.getElementById("smooth-v");
  function ema(y, w) {
    var s = 0, d = 1, r = new Array(y.length);
    for (var i = 0; i < y.length; i++) {
      s = w * s + (1 - w) * y[i];
      d *= w;
      r[i] = s / (1 - d);
    }
    return r;
  }
  function points(c, x, y) {
    var g = c.G, p = [];
    for (var i = 0; i < x.length; i++) {
      var px = g[0] + (x[i] - c.X0) / (c.X1 - c.X0) * g[2], py = g[1] + (1 - (y[i] - c.Y0) / (c.Y1 - c.Y0)) * g[3];
      p.push(px.toFixed(1) + "," + py.toFixed(1));
    }
    return p.join(" ");
  }
  function draw() {
    var w = Math.min(Math.max(+slider.value, 0), 0.99);
    out.textContent = w.toFixed(2);
    document.querySelectorAll("svg[data-chart]").forEach(function (svg) {
      var c = charts[svg.dataset.chart];
      if (!c) return;
      svg.querySelectorAll("polyline.sm").forEach(function (pl) {
        var s = c.S[+pl.dataset.s];
        pl.setAttribute("points", points(c, s.X, ema(s.Y, w)));
      });
    });
  }
  slider.addEventListener("input", draw);
})();
