"use strict";
// The questions arrive packed (pack.go): unpack them, then keep in the
// document only the visible page of rows, and build a row's rounds when it
// is opened. Every text goes in as textContent, never as markup.
(function () {
  var $ = function (id) { return document.getElementById(id); };
  var PAGE = 50, ACTIONS = ACTION_NAMES; // the actions' names, written in by view (metapolicy's list)
  var D = null, keys = [], order = [], at = 0;
  var texts = null, waiting = [];
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = String(text);
    return e;
  }
  function unpack(id) {
    var bin = atob(JSON.parse($(id).textContent)), u8 = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) u8[i] = bin.charCodeAt(i);
    var s = new Blob([u8]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(s).text().then(JSON.parse);
  }
  // text fills e with text number i once the texts are unpacked.
  function text(e, i) {
    if (texts) e.textContent = texts[i]; else waiting.push([e, i]);
  }
  function f2(x) { return x.toFixed(2); }
  // key is what the search box matches in a row: the question's text, its
  // id, gold, model, kind and source.
  function key(r, question) {
    return [question, r.t, r.g, D.models[r.m], D.kinds[r.k], D.sources[r.s]].join("\n").toLowerCase();
  }
  // share is a policy's share of right episodes on a row; NaN when none is scored.
  function share(r, k) { return r.c[k] / r.n[k]; }
  function keep(i, f) {
    var r = D.rows[i];
    if (f.model !== "" && r.m !== +f.model) return false;
    if (f.kind !== "" && r.k !== +f.kind) return false;
    if (f.q && keys[i].indexOf(f.q) < 0) return false;
    if (f.show === "disagree") return r.d;
    if (f.show === "won") return share(r, f.a) > share(r, f.b);
    if (f.show === "lost") return share(r, f.a) < share(r, f.b);
    return true;
  }
  function update() {
    order = filtered();
    at = 0;
    render();
  }
  // filtered is the rows the controls select, in the order they ask.
  function filtered() {
    var out = [], f = { show: $("show").value, a: +$("pa").value, b: +$("pb").value, model: $("model").value,
      kind: $("kind").value, q: $("q").value.toLowerCase() };
    for (var i = 0; i < D.rows.length; i++) if (keep(i, f)) out.push(i);
    var s = $("sort").value;
    if (s !== "order") {
      var sign = /desc$/.test(s) ? -1 : 1, a = f.a;
      var tok = /^a-/.test(s) ? function (i) { return D.rows[i].pt[a]; } : function (i) { return D.rows[i].tok; };
      out.sort(function (x, y) { return sign * (tok(x) - tok(y)) || x - y; });
    }
    return out;
  }
  function render() {
    var list = $("list"), end = Math.min(at + PAGE, order.length), frag = document.createDocumentFragment();
    for (var j = at; j < end; j++) frag.appendChild(row(order[j]));
    list.textContent = "";
    list.appendChild(frag);
    $("count").textContent = order.length + " of " + D.rows.length + " questions";
    $("count").dataset.n = order.length;
    $("page").textContent = order.length ? (at + 1) + "–" + end : "none";
    $("prev").disabled = at === 0;
    $("next").disabled = end >= order.length;
  }
  // outcome is a policy's verdict on a row: ✓ all its episodes right, ✗
  // none, right/scored when mixed, ? with no gold; and the chip's class.
  function outcome(r, k) {
    if (!r.n[k]) return ["?", "un"];
    if (r.c[k] === r.n[k]) return [r.n[k] > 1 ? "✓ " + r.c[k] + "/" + r.n[k] : "✓", "ok"];
    if (r.c[k] === 0) return [r.n[k] > 1 ? "✗ 0/" + r.n[k] : "✗", "no"];
    return [r.c[k] + "/" + r.n[k], "mix"];
  }
  // row is a question's line in the list: its opening words, then id,
  // gold and each policy's outcome and tokens, all visible unopened.
  function row(i) {
    var r = D.rows[i], d = el("details", "q"), s = el("summary"), meta = el("span", "meta");
    d.dataset.i = i;
    s.appendChild(el("span", "qo", r.o || r.t)); // the id heads a question recorded without its text
    meta.appendChild(el("code", "id", r.t));
    meta.appendChild(document.createTextNode(" gold "));
    meta.appendChild(el("code", "gold", r.g || "(none)"));
    D.policies.forEach(function (p, k) {
      var o = outcome(r, k), c = el("span", "m " + o[1]);
      c.dataset.k = k;
      c.appendChild(el("b", "", p));
      c.appendChild(document.createTextNode(" " + o[0] + " · " + r.pt[k] + " tok"));
      meta.appendChild(document.createTextNode(" "));
      meta.appendChild(c);
    });
    var src = el("span", "src", [D.models[r.m], D.kinds[r.k], D.sources[r.s]].filter(Boolean).join(" · "));
    src.title = src.textContent; // the source may be cut to the line
    meta.appendChild(document.createTextNode(" "));
    meta.appendChild(src);
    s.appendChild(meta);
    d.appendChild(s);
    d.addEventListener("toggle", function () {
      if (d.open && d.childNodes.length === 1) body(d, r);
    });
    return d;
  }
  function body(d, r) {
    if (r.q >= 0) text(d.appendChild(el("pre", "qt")), r.q);
    var cols = d.appendChild(el("div", "cols"));
    r.e.forEach(function (eps, k) {
      var col = cols.appendChild(el("div", "col"));
      col.dataset.k = k;
      col.appendChild(el("h3", "", D.policies[k] + " · " + r.pt[k] + " tok" + (D.rule[k] ? " · deterministic rule: no π" : "")));
      eps.forEach(function (ep) { col.appendChild(episode(ep)); });
    });
  }
  function episode(ep) {
    var div = el("div", "ep"), t = el("table"), h = el("tr");
    div.appendChild(el("small", "", ep.id + " · confidence: " + D.confs[ep.c]));
    ["round", "team"].forEach(function (x) { h.appendChild(el("th", "", x)); });
    ep.r[0].u.forEach(function (_, a) { h.appendChild(el("th", "", "agent " + a)); });
    t.appendChild(h);
    ep.r.forEach(function (rd, n) {
      var tr = el("tr");
      tr.appendChild(el("td", "", n));
      tr.appendChild(el("td", rd.ok < 0 ? "" : rd.ok ? "ok" : "no", (rd.a || "(none)") + (rd.ok < 0 ? "" : rd.ok ? " ✓" : " ✗")));
      rd.u.forEach(function (u) { tr.appendChild(cell(u)); });
      t.appendChild(tr);
    });
    div.appendChild(t);
    return div;
  }
  // cell is one turn: [answer, action, confidence, tokens, text, probabilities].
  function cell(u) {
    var td = el("td");
    td.appendChild(el("code", "", u[0] || "(none)"));
    if (u[1] >= 0) {
      td.appendChild(document.createTextNode(" "));
      td.appendChild(el("i", "", ACTIONS[u[1]]));
      var p = u[5];
      if (Array.isArray(p)) {
        // π's shares may break a line after each slash, not within a number.
        var pi = td.appendChild(el("span", "pi", "p=" + f2(p[u[1]]) + " π="));
        p.forEach(function (x, j) {
          if (j) { pi.appendChild(document.createTextNode("/")); pi.appendChild(el("wbr")); }
          pi.appendChild(document.createTextNode(f2(x)));
        });
      } else if (p !== undefined) td.appendChild(el("span", "pi", "p=" + f2(p)));
    }
    td.appendChild(el("small", "ct", "conf " + (u[2] < 0 ? "missing" : f2(u[2])) + " · " + u[3] + " tok"));
    if (u[4] >= 0) {
      var dt = td.appendChild(el("details"));
      dt.appendChild(el("summary", "", "text"));
      text(dt.appendChild(el("pre")), u[4]);
    }
    return td;
  }
  function options(sel, names) {
    names.map(function (n, i) { return [n || "unknown", i]; })
      .sort(function (x, y) { return x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0; })
      .forEach(function (o) { var e = el("option", "", o[0]); e.value = o[1]; sel.appendChild(e); });
  }
  if (typeof DecompressionStream === "undefined") {
    $("count").textContent = "this browser cannot unpack the page: it lacks DecompressionStream (Chrome or Edge 80+, Firefox 113+, Safari 16.4+)";
    return;
  }
  unpack("data").then(function (d) {
    D = d;
    D.policies.forEach(function (p, k) {
      [$("pa"), $("pb")].forEach(function (s) { var e = el("option", "", p); e.value = k; s.appendChild(e); });
    });
    // A is the first learned policy (else the last), B the first fixed protocol other than A.
    var a = D.fixed.indexOf(false), b;
    if (a < 0) a = D.policies.length - 1;
    b = D.fixed.findIndex(function (f, k) { return f && k !== a; });
    $("pa").selectedIndex = a;
    $("pb").selectedIndex = b < 0 ? 0 : b;
    options($("model"), D.models);
    options($("kind"), D.kinds);
    keys = D.rows.map(function (r) { return key(r, r.o); });
    ["show", "pa", "pb", "model", "kind", "q", "sort"].forEach(function (id) { $(id).addEventListener("input", update); });
    $("prev").addEventListener("click", function () { at = Math.max(0, at - PAGE); render(); });
    $("next").addEventListener("click", function () { if (at + PAGE < order.length) { at += PAGE; render(); } });
    update();
    // view.html#task=ID (a study report's links) opens on that question.
    var go = function () {
      var m = /^#task=(.+)$/.exec(location.hash);
      if (!m) return;
      $("q").value = decodeURIComponent(m[1]);
      update();
      var first = $("list").querySelector("details.q");
      if (first) first.open = true;
    };
    go();
    window.addEventListener("hashchange", go);
    document.body.dataset.readyMs = Math.round(performance.now());
    document.body.dataset.ready = "1";
    return unpack("texts");
  }).then(function (t) {
    texts = t;
    waiting.forEach(function (w) { w[0].textContent = texts[w[1]]; });
    waiting = [];
    // The search now reads the whole question, not only its opening.
    keys = D.rows.map(function (r) { return key(r, r.q >= 0 ? texts[r.q] : ""); });
    // Drawn again only if that changes the rows (an opened row stays open).
    var now = filtered();
    if (now.join() !== order.join()) update();
    document.body.dataset.textsMs = Math.round(performance.now());
    document.body.dataset.texts = "1";
  }).catch(function (err) {
    $("count").textContent = "the page could not be unpacked: " + err;
  });
})();
