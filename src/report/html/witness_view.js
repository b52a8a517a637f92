// witness_view.js - Draws the racepredict HTML report from its JSON model
// (report/html_report.h): the list of findings, and per finding the
// accesses with their stacks and the witness as one lane per thread, with
// folded runs that expand and synchronisation edges drawn in SVG.
(function () {
  "use strict";
  window.addEventListener("error", function (e) {
    document.body.setAttribute("data-js-error", String(e.message));
  });
  var model = JSON.parse(document.getElementById("racepredict-data").textContent);
  var current = -1;

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function stepById(f) {
    var map = {};
    f.steps.forEach(function (s) { map[s.i] = s; });
    return map;
  }

  function locOf(f, s) {
    return s.l !== undefined ? f.locs[s.l] : {};
  }

  function showDetail(f, s) {
    var d = document.getElementById("detail");
    var l = locOf(f, s);
    var lines = ["step " + (s.i + 1) + ", event " + s.e + ", thread " +
                 f.threads[s.lane] + ": " + s.op];
    if (l.loc) lines.push(l.loc + (l.fn ? " in " + l.fn : ""));
    if (l.src) lines.push("  " + l.src);
    d.textContent = lines.join("\n");
    d.style.display = "block";
  }

  function stepRow(f, s) {
    var tr = el("tr", { "class": "step role-" + s.role, "data-step": s.i,
                        "data-event": s.e });
    tr.appendChild(el("td", { "class": "num" }, String(s.i + 1)));
    for (var lane = 0; lane < f.threads.length; lane++) {
      var td = el("td");
      if (lane === s.lane) {
        var ev = el("div", { "class": "ev", "id": "step-" + s.i }, s.op);
        var l = locOf(f, s);
        ev.title = (l.loc || "<unknown>") + (l.fn ? " in " + l.fn : "") +
                   (l.src ? "\n" + l.src : "");
        ev.addEventListener("click", showDetail.bind(null, f, s));
        td.appendChild(ev);
      }
      tr.appendChild(td);
    }
    return tr;
  }

  function foldRow(f, row, rowsOfGap) {
    var tr = el("tr", { "class": "fold", "data-from": row.fold[0],
                        "data-to": row.fold[1] });
    tr.appendChild(el("td", { "class": "num" }));
    for (var lane = 0; lane < f.threads.length; lane++) {
      var td = el("td", lane === row.lane ? { "class": "foldcell" } : {});
      if (lane === row.lane) {
        var b = el("button", {}, row.text + (row.expandable ? " (show)" : ""));
        if (row.expandable)
          b.addEventListener("click", function () { expand(f, rowsOfGap); });
        else
          b.title = "the whole schedule is in the JSON report";
        td.appendChild(b);
      }
      tr.appendChild(td);
    }
    return tr;
  }

  // Replaces every fold row of one gap by the steps it folded.
  function expand(f, rowsOfGap) {
    var byId = stepById(f);
    var first = rowsOfGap[0];
    var from = Number(first.getAttribute("data-from"));
    var to = Number(first.getAttribute("data-to"));
    for (var i = from; i <= to; i++)
      if (byId[i]) first.parentNode.insertBefore(stepRow(f, byId[i]), first);
    rowsOfGap.forEach(function (r) { r.parentNode.removeChild(r); });
    drawEdges(f);
  }

  function center(node, lanes) {
    var r = node.getBoundingClientRect(), o = lanes.getBoundingClientRect();
    return { x: r.left - o.left + r.width / 2, top: r.top - o.top,
             bottom: r.bottom - o.top };
  }

  function drawEdges(f) {
    var lanes = document.querySelector(".lanes");
    var svg = lanes.querySelector("svg.edges");
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    svg.setAttribute("width", lanes.scrollWidth);
    svg.setAttribute("height", lanes.scrollHeight);
    f.edges.forEach(function (edge) {
      var a = document.getElementById("step-" + edge[0]);
      var b = document.getElementById("step-" + edge[1]);
      if (!a || !b) return; // folded away
      var p = center(a, lanes), q = center(b, lanes);
      var path = document.createElementNS("http://www.w3.org/2000/svg", "path");
      var midY = (p.bottom + q.top) / 2;
      path.setAttribute("d", "M" + p.x + "," + p.bottom + " C" + p.x + "," +
                        midY + " " + q.x + "," + midY + " " + q.x + "," + q.top);
      var kind = edge[2] === "race" ? "race"
               : edge[2] === "waits for" ? "waits-for" : "sync";
      path.setAttribute("class", kind);
      path.setAttribute("data-kind", edge[2]);
      svg.appendChild(path);
    });
  }

  function show(k) {
    current = k;
    var f = model.findings[k];
    var items = document.querySelectorAll("#findings li");
    for (var i = 0; i < items.length; i++)
      items[i].className = i === k ? "current" : "";
    var main = document.getElementById("finding");
    main.innerHTML = "";
    main.setAttribute("data-kind", f.kind);
    main.appendChild(el("h1", {}, "WARNING: racepredict: " + f.title + " (" +
                                  f.status + ")"));
    main.appendChild(el("div", { "class": "summary" }, f.summary));
    f.events.forEach(function (e) {
      main.appendChild(el("div", { "class": "event-note" },
                          e.note + " (event " + e.event + "):"));
      main.appendChild(el("div", { "class": "stack" }, e.stack.map(
          function (fr, n) { return "#" + n + " " + fr; }).join("\n")));
    });
    var legend = el("div", { "class": "legend" });
    [["#ffd6d6", f.kind === "race" ? "racing access" : "blocked request"],
     ["#e1f0ff", "synchronisation reordered"],
     ["#fff4d1", "read keeps its recorded value"],
     ["#eef8ee", "last steps of an involved thread"]].forEach(function (l) {
      var s = el("span");
      var box = el("i");
      box.style.background = l[0];
      s.appendChild(box);
      s.appendChild(document.createTextNode(l[1]));
      legend.appendChild(s);
    });
    main.appendChild(el("p", {}, "Witness schedule: " + f.length +
                        " steps, one lane per thread; click a step for its " +
                        "source line, a folded run to expand it."));
    main.appendChild(legend);
    var lanes = el("div", { "class": "lanes" });
    var table = el("table", { "class": "witness" });
    var head = el("tr");
    head.appendChild(el("th", {}, "#"));
    f.threads.forEach(function (t) { head.appendChild(el("th", {}, t)); });
    table.appendChild(el("thead")).appendChild(head);
    var body = el("tbody");
    var byId = stepById(f);
    var gap = null, gapKey = "";
    f.rows.forEach(function (row) {
      if (row.step !== undefined) {
        gap = null;
        body.appendChild(stepRow(f, byId[row.step]));
        return;
      }
      var key = row.fold.join("-");
      if (key !== gapKey || !gap) { gap = []; gapKey = key; }
      var tr = foldRow(f, row, gap);
      gap.push(tr);
      body.appendChild(tr);
    });
    table.appendChild(body);
    lanes.appendChild(table);
    lanes.appendChild(document.createElementNS("http://www.w3.org/2000/svg", "svg"))
        .setAttribute("class", "edges");
    main.appendChild(lanes);
    document.getElementById("detail").style.display = "none";
    drawEdges(f);
    document.body.setAttribute("data-finding", String(k));
  }

  var list = document.getElementById("findings");
  model.findings.forEach(function (f, k) {
    var li = el("li", { "data-index": k }, f.title);
    li.appendChild(el("span", { "class": "status" }, f.status + " · " + f.summary));
    li.addEventListener("click", function () { show(k); });
    list.appendChild(li);
  });
  // `#finding=K` opens finding K, `#expand` unfolds every folded run (links
  // to one finding; the browser test uses both).
  var hash = {};
  location.hash.replace(/^#/, "").split("&").forEach(function (kv) {
    var p = kv.split("=");
    if (p[0]) hash[p[0]] = p[1] === undefined ? "" : p[1];
  });
  var first = Number(hash.finding || 0);
  if (model.findings.length)
    show(first >= 0 && first < model.findings.length ? first : 0);
  else
    document.getElementById("finding").textContent = "No findings.";
  if (hash.expand !== undefined && current >= 0) {
    var btns = document.querySelectorAll("tr.fold button");
    for (var b = 0; b < btns.length; b++)
      if (btns[b].isConnected) btns[b].click();
  }
  window.addEventListener("resize", function () {
    if (current >= 0) drawEdges(model.findings[current]);
  });
  document.body.setAttribute("data-rendered", "ok");
})();
