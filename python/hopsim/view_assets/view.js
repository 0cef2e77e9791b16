// hopsim view: replays runs on their topology. DATA (embedded by hopsim.view) holds, per
// run, the nodes and ports, and per port and time step the largest queue, the fraction of
// the step it was paused, and the deflections and drops in it. No network, no libraries.
"use strict";

const SVGNS = "http://www.w3.org/2000/svg";
const EDGES = DATA.edges;
const STEPS = EDGES.length - 1;
const state = { frame: 0, timer: null, selected: null, flow: null };
const views = [];
const charts = [];

function el(tag, attrs, parent, text) {
  const ns = ["svg", "line", "rect", "circle", "polygon", "polyline", "text", "g", "title"].includes(tag);
  const node = ns ? document.createElementNS(SVGNS, tag) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}

function fmtTime(ns) {
  if (ns >= 1e6) return (ns / 1e6).toFixed(3) + " ms";
  return (ns / 1e3).toFixed(1) + " µs";
}

function fmtBytes(b) {
  for (const [u, s] of [["GB", 1e9], ["MB", 1e6], ["KB", 1e3]]) {
    if (b >= s) return (b / s).toPrecision(3) + " " + u;
  }
  return Math.round(b) + " B";
}

const fmtInt = (v) => Math.round(v).toLocaleString("en-US");

let queueMax = 1;
for (const run of DATA.runs) {
  for (const vals of Object.values(run.queue)) queueMax = Math.max(queueMax, ...vals);
}

// Colour of a backlog: grey when empty, then yellow to dark red on a square-root scale (so
// the small queues of a lightly loaded port stay visible beside a congestion root's).
function colour(bytes) {
  if (!bytes) return "#cfcfcf";
  const f = Math.min(1, Math.sqrt(bytes / queueMax));
  const from = [253, 216, 53];
  const to = [150, 20, 20];
  const c = from.map((a, i) => Math.round(a + (to[i] - a) * f));
  return `rgb(${c[0]},${c[1]},${c[2]})`;
}

function snapshotAt(run, frame) {
  let snap = null;
  for (const s of run.trees) {
    if (s.t <= EDGES[frame + 1]) snap = s;
    else break;
  }
  return snap;
}

function drawRun(run, ri) {
  const box = el("div", { class: "run", id: `run-${ri}` }, document.getElementById("runs"));
  el("h2", {}, box, run.label);
  const pol = Object.entries(run.policies)
    .filter(([, v]) => v)
    .map(([k, v]) => `${k} ${v}`)
    .join(" · ");
  el("div", { class: "meta" }, box, `${pol} · ${run.status}`);
  for (const line of run.lines) el("div", { class: "meta" }, box, line);
  const status = el("div", { class: "status", id: `status-${ri}` }, box);
  const nodes = new Map(run.nodes.map((n) => [n.id, n]));
  const width = Math.max(...run.nodes.map((n) => n.x)) + 30;
  const height = Math.max(...run.nodes.map((n) => n.y)) + 30;
  const svg = el("svg", { viewBox: `0 0 ${width} ${height}`, id: `svg-${ri}` }, box);
  const gLinks = el("g", {}, svg);
  const gHalo = el("g", {}, svg);
  const gPorts = el("g", {}, svg);
  const gNodes = el("g", {}, svg);
  const gMarks = el("g", {}, svg);
  const gHits = el("g", {}, svg);
  const ports = run.ports.map((p, i) => {
    const a = nodes.get(p.node);
    const b = nodes.get(run.ports[p.peer].node);
    if (i < p.peer) {
      el("line", { class: "link", x1: a.x, y1: a.y, x2: b.x, y2: b.y }, gLinks);
    }
    const dx = b.x - a.x;
    const dy = b.y - a.y;
    const len = Math.hypot(dx, dy) || 1;
    const side = i < p.peer ? 1.6 : -1.6;
    const ox = (-dy / len) * side;
    const oy = (dx / len) * side;
    const x0 = a.x + dx * 0.12 + ox;
    const y0 = a.y + dy * 0.12 + oy;
    const x1 = a.x + dx * 0.42 + ox;
    const y1 = a.y + dy * 0.42 + oy;
    const geo = { x1: x0, y1: y0, x2: x1, y2: y1 };
    const halo = el("line", { class: "port-halo", ...geo }, gHalo);
    const key = `${p.node}:${p.port}`;
    const line = el("line", { class: "port", "data-key": key, "data-run": ri, "data-idx": i, ...geo }, gPorts);
    // What a click hits: a wider transparent stroke above everything else.
    const hit = el("line", { class: "port-hit", "data-key": key, "data-run": ri, ...geo }, gHits);
    el("title", {}, hit, `node ${p.node} port ${p.port} (${p.tier}): click for its queue and counters`);
    hit.addEventListener("click", () => selectPort(key));
    // The PAUSE travels from the peer towards this port's node: an arrowhead at the
    // segment's far end, pointing at the node it stops.
    const ux = -dx / len;
    const uy = -dy / len;
    const tip = [x1 + ux * 6, y1 + uy * 6];
    const arrow = el("polygon", {
      class: "pause-arrow",
      points: `${tip[0]},${tip[1]} ${x1 - uy * 3},${y1 + ux * 3} ${x1 + uy * 3},${y1 - ux * 3}`,
      visibility: "hidden",
    }, gMarks);
    const count = el("text", { class: "count", x: x1 + 3, y: y1 - 2, visibility: "hidden" }, gMarks);
    return { p, line, halo, arrow, count, mid: [(x0 + x1) / 2, (y0 + y1) / 2] };
  });
  const hostEls = new Map();
  for (const n of run.nodes) {
    if (n.tier === "host") {
      const c = el("circle", { class: "node-host", cx: n.x, cy: n.y, r: 2.5, "data-node": n.id }, gNodes);
      el("title", {}, c, `host ${n.id}`);
      hostEls.set(n.id, c);
    } else {
      const r = el("rect", { class: "node-switch", x: n.x - 6, y: n.y - 4, width: 12, height: 8, "data-node": n.id }, gNodes);
      el("title", {}, r, `${n.tier} ${n.id}`);
    }
  }
  const gRings = el("g", {}, svg);
  return { run, ports, status, hostEls, gRings, byKey: new Map(ports.map((x, i) => [`${x.p.node}:${x.p.port}`, i])) };
}

function update() {
  const f = state.frame;
  const t0 = EDGES[f];
  const t1 = EDGES[f + 1];
  document.getElementById("time").value = f;
  document.getElementById("time-label").textContent = `${fmtTime(t0)} – ${fmtTime(t1)} (step ${f + 1} of ${STEPS})`;
  for (const v of views) {
    const run = v.run;
    const snap = snapshotAt(run, f);
    const iq = new Set();
    if (snap) for (const m of snap.members) if (m[2] === "iq") iq.add(m[0]);
    let paused = 0;
    let defl = 0;
    let drops = 0;
    v.ports.forEach((x, i) => {
      const q = run.queue[i] ? run.queue[i][f] : 0;
      x.line.setAttribute("stroke", colour(q));
      const pf = run.paused[i] ? run.paused[i][f] : 0;
      if (pf > 0) paused += 1;
      const key = `${x.p.node}:${x.p.port}`;
      x.halo.setAttribute("class", "port-halo" + (state.selected === key ? " selected" : pf > 0 ? " paused" : iq.has(i) ? " iq" : ""));
      x.halo.setAttribute("stroke-opacity", pf > 0 ? String(0.35 + 0.65 * pf) : "1");
      x.arrow.setAttribute("visibility", pf > 0 ? "visible" : "hidden");
      const d = run.deflect[i] ? run.deflect[i][f] : 0;
      const k = run.drop[i] ? run.drop[i][f] : 0;
      defl += d;
      drops += k;
      if (k > 0) {
        x.count.textContent = `✕${k}`;
        x.count.setAttribute("class", "count drop");
      } else if (d > 0) {
        x.count.textContent = `↷${d}`;
        x.count.setAttribute("class", "count deflect");
      }
      x.count.setAttribute("visibility", d > 0 || k > 0 ? "visible" : "hidden");
    });
    v.gRings.replaceChildren();
    if (snap) {
      for (const r of snap.roots) {
        const [cx, cy] = v.ports[r].mid;
        el("circle", { class: "root-ring", cx, cy, r: 7 }, v.gRings);
      }
    }
    const parts = [`${paused} port${paused === 1 ? "" : "s"} paused`];
    if (run.trees.length) parts.push(`${snap ? snap.roots.length : 0} congestion roots (snapshot ${snap ? fmtTime(snap.t) : "none yet"})`);
    if (Object.keys(run.deflect).length || Object.keys(run.drop).length) parts.push(`${defl} deflections, ${drops} drops in this step`);
    v.status.textContent = parts.join(" · ");
  }
  for (const c of charts) c.now();
}

function setFrame(f) {
  state.frame = Math.max(0, Math.min(STEPS - 1, f));
  update();
}

// A line chart of per-step values over the run, with a marker at the current step and,
// optionally, shading where a port was paused.
function chart(parent, series, unit, shade) {
  const W = 440;
  const H = 150;
  const L = 56;
  const B = 20;
  const svg = el("svg", { class: "chart", width: W, height: H }, parent);
  const vmax = Math.max(1e-9, ...series.flatMap((s) => s.values));
  const x = (i) => L + ((W - L - 8) * EDGES[i]) / EDGES[STEPS];
  const y = (v) => H - B - ((H - B - 8) * v) / vmax;
  if (shade) {
    shade.forEach((frac, i) => {
      if (frac > 0) el("rect", { x: x(i), y: 8, width: Math.max(1, x(i + 1) - x(i)), height: H - B - 8, fill: "#d62728", "fill-opacity": 0.12 + 0.3 * frac }, svg);
    });
  }
  el("line", { x1: L, y1: H - B, x2: W - 8, y2: H - B, stroke: "#999" }, svg);
  el("line", { x1: L, y1: 8, x2: L, y2: H - B, stroke: "#999" }, svg);
  el("text", { x: L - 4, y: 14, "text-anchor": "end" }, svg, unit === "bytes" ? fmtBytes(vmax) : vmax.toPrecision(3) + " " + unit);
  el("text", { x: L - 4, y: H - B, "text-anchor": "end" }, svg, "0");
  el("text", { x: W - 8, y: H - 4, "text-anchor": "end" }, svg, fmtTime(EDGES[STEPS]));
  el("text", { x: L, y: H - 4 }, svg, "0");
  for (const s of series) {
    const pts = s.values.map((v, i) => `${((x(i) + x(i + 1)) / 2).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
    el("polyline", { points: pts, fill: "none", stroke: s.colour, "stroke-width": 1.5 }, svg);
  }
  const now = el("line", { y1: 8, y2: H - B, stroke: "#1f77b4", "stroke-dasharray": "3 2" }, svg);
  charts.push({
    now() {
      const cx = (x(state.frame) + x(state.frame + 1)) / 2;
      now.setAttribute("x1", cx);
      now.setAttribute("x2", cx);
    },
  });
  charts[charts.length - 1].now();
  return svg;
}

function table(parent, rows) {
  const t = el("table", {}, parent);
  for (const [k, v] of rows) {
    const tr = el("tr", {}, t);
    el("td", {}, tr, k);
    el("td", {}, tr, v);
  }
  return t;
}

function selectPort(key) {
  state.selected = key;
  state.flow = null;
  charts.length = 0;
  const info = document.getElementById("info");
  info.replaceChildren();
  views.forEach((v, ri) => {
    const panel = el("div", { class: "panel", id: `info-${ri}` }, info);
    const i = v.byKey.get(key);
    if (i === undefined) {
      el("p", {}, panel, `${v.run.label}: no port ${key}`);
      return;
    }
    const p = v.run.ports[i];
    const peer = v.run.ports[p.peer];
    el("h2", {}, panel, `${v.run.label}: node ${p.node} port ${p.port} (${p.tier}) → node ${peer.node} (${peer.tier})`);
    const s = p.stats;
    const sent = Object.entries(p.sent).map(([k, n]) => `${fmtInt(n)} ${k}`).join(", ") || "none";
    const busy = v.run.ports.length ? (100 * s.busy_time_ns) / EDGES[STEPS] : 0;
    table(panel, [
      ["link rate", `${s.rate_bps / 1e9} Gb/s`],
      ["sent", `${fmtBytes(s.tx_bytes)} (busy ${busy.toFixed(1)} % of the run)`],
      ["max queue", fmtBytes(s.max_queue_bytes)],
      ["paused", `${fmtTime(s.paused_time_ns)} in all`],
      ["frames it sent upstream", sent],
      ["PAUSE frames it received", fmtInt(s.pause_received)],
      ["deflections", fmtInt(s.deflections)],
    ]);
    const q = v.run.queue[i] || new Array(STEPS).fill(0);
    el("div", { class: "hint" }, panel, "largest sampled queue per step; red: paused");
    chart(panel, [{ values: q, colour: "#b71c1c" }], "bytes", v.run.paused[i]);
  });
  update();
}

function selectFlow(ri, id) {
  state.selected = null;
  charts.length = 0;
  const v = views[ri];
  const f = v.run.flows.find((x) => x.id === id);
  for (const w of views) for (const c of w.hostEls.values()) c.setAttribute("class", "node-host");
  for (const h of [f.src, f.dst]) {
    const c = v.hostEls.get(h);
    if (c) c.setAttribute("class", "node-host marked");
  }
  const info = document.getElementById("info");
  info.replaceChildren();
  const panel = el("div", { class: "panel", id: `info-${ri}` }, info);
  el("h2", {}, panel, `${v.run.label}: flow ${f.id}, host ${f.src} → host ${f.dst}`);
  table(panel, [
    ["size", fmtBytes(f.size)],
    ["start", fmtTime(f.start)],
    ["FCT", f.fct === null ? "unfinished" : fmtTime(f.fct)],
    ["slowdown", f.slowdown === null ? "–" : f.slowdown.toFixed(2)],
    ["class / tag", `${f.class} / ${f.tag}`],
    ["retransmitted", fmtBytes(f.retransmitted)],
    ["timeouts", fmtInt(f.timeouts)],
    ["deflections", fmtInt(f.deflections)],
  ]);
  const rate = v.run.rates[id];
  if (rate) {
    el("div", { class: "hint" }, panel, "delivered rate per step");
    chart(panel, [{ values: rate, colour: "#1f77b4" }], "Gb/s");
  } else {
    el("div", { class: "missing" }, panel, 'rate over time: record [output.throughput] interval = "20us"');
  }
  update();
}

function drawFlows() {
  const sec = document.getElementById("flows");
  el("h2", {}, sec, `Flows (the ${DATA.limits.flows} largest slowdowns per run, unfinished first; click one)`);
  const wrap = el("div", { class: "flowtables" }, sec);
  views.forEach((v, ri) => {
    const box = el("div", {}, wrap);
    el("div", { class: "meta" }, box, v.run.label);
    const t = el("table", {}, box);
    const head = el("tr", {}, t);
    for (const h of ["flow", "src → dst", "size", "FCT", "slowdown", "class"]) el("th", {}, head, h);
    for (const f of v.run.flows) {
      const tr = el("tr", { class: "flow", "data-run": ri, "data-flow": f.id }, t);
      el("td", {}, tr, String(f.id));
      el("td", {}, tr, `${f.src} → ${f.dst}`);
      el("td", {}, tr, fmtBytes(f.size));
      el("td", {}, tr, f.fct === null ? "unfinished" : fmtTime(f.fct));
      el("td", {}, tr, f.slowdown === null ? "–" : f.slowdown.toFixed(2));
      el("td", {}, tr, f.class);
      tr.addEventListener("click", () => selectFlow(ri, f.id));
    }
  });
}

function drawNotes() {
  const notes = document.getElementById("notes");
  for (const run of DATA.runs) {
    const from = run.frames_from ? `pauses from ${run.frames_from}.parquet` : "no pause frames recorded";
    el("h2", {}, notes, `${run.label} (${run.path}): ${from}`);
    const ul = el("ul", {}, notes);
    if (!run.missing.length) el("li", {}, ul, "everything the page can show was recorded");
    for (const m of run.missing) el("li", { class: "missing" }, ul, `not recorded: ${m.what} — add ${m.setting} to the scenario`);
  }
  const L = DATA.limits;
  el("p", { class: "hint" }, notes,
    `Sampled: at most ${L.frames} time steps (${STEPS} here, ${fmtTime(EDGES[1] - EDGES[0])} each), ` +
    `at most ${L.port_values.toLocaleString("en-US")} port values per run; a step shows each port's largest sampled queue, ` +
    "the fraction of the step it was paused, and the deflections and drops in it.");
}

function drawLegend() {
  const lg = document.getElementById("legend");
  const q = el("span", {}, lg);
  const sw = el("span", { class: "swatch", style: `background: linear-gradient(to right, ${colour(queueMax * 0.01)}, ${colour(queueMax)})` }, q);
  sw.title = "queue";
  q.append(`queue 0 – ${fmtBytes(queueMax)} (√ scale)`);
  el("span", {}, lg, "red outline + arrow: paused (arrow = the PAUSE's direction)");
  el("span", {}, lg, "purple ring: congestion root; purple outline: isolation queue");
  el("span", {}, lg, "↷ packets deflected out of the port, ✕ drops at it, in the step");
}

function play() {
  const btn = document.getElementById("play");
  if (state.timer) {
    clearInterval(state.timer);
    state.timer = null;
    btn.textContent = "▶";
    return;
  }
  if (state.frame >= STEPS - 1) setFrame(0);
  btn.textContent = "⏸";
  state.timer = setInterval(() => {
    if (state.frame >= STEPS - 1) {
      play();
      return;
    }
    setFrame(state.frame + 1);
  }, 80);
}

document.getElementById("title").textContent = document.title;
const slider = document.getElementById("time");
slider.max = STEPS - 1;
slider.addEventListener("input", () => setFrame(Number(slider.value)));
document.getElementById("play").addEventListener("click", play);
document.addEventListener("keydown", (e) => {
  if (e.code === "Space" && e.target === document.body) {
    e.preventDefault();
    play();
  }
});
DATA.runs.forEach((run, ri) => views.push(drawRun(run, ri)));
drawLegend();
drawFlows();
drawNotes();
update();
window.hopsimView = { state, setFrame, selectPort, selectFlow };
