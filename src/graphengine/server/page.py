"""The inspector page: one self-contained HTML document (inline CSS and JavaScript, no CDN).

Kept as a Python string so it ships inside the package with no package-data setup and no
build step. `__TITLE__` is replaced (HTML-escaped) by `inspector.inspector_html`. The script
talks only to this server's `/api/...` routes; every value from the API is put on the page
with `textContent`, never as HTML, except the SVG drawing the server renders itself.
"""

from __future__ import annotations

__all__ = ["PAGE"]

PAGE = r"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>__TITLE__ · inspector</title>
<style>
  :root { --fg:#1d2330; --muted:#5f6b7a; --line:#d9dee5; --bg:#f6f7f9; --card:#fff; --accent:#1f5fbf;
          --ok:#1a7f37; --warn:#b86e00; --bad:#c0392b; font-family: system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; }
  * { box-sizing: border-box; }
  body { margin:0; color:var(--fg); background:var(--bg); font-size:14px; }
  header { display:flex; align-items:center; gap:16px; padding:10px 18px; background:#1d2330; color:#fff; }
  header h1 { font-size:16px; margin:0; font-weight:600; }
  header .sub { color:#aab4c3; font-size:13px; }
  main { display:grid; grid-template-columns: 330px minmax(0, 1fr); gap:14px; padding:14px; align-items:start; }
  .card { background:var(--card); border:1px solid var(--line); border-radius:8px; padding:12px 14px; margin-bottom:14px; }
  .card h2 { font-size:13px; text-transform:uppercase; letter-spacing:.04em; color:var(--muted); margin:0 0 10px; }
  table { border-collapse:collapse; width:100%; }
  th, td { text-align:left; padding:5px 6px; border-bottom:1px solid var(--line); vertical-align:top; }
  th { font-size:12px; color:var(--muted); font-weight:600; }
  tr.sel td { background:#e8f0fc; }
  tbody tr { cursor:pointer; }
  tbody tr:hover td { background:#f1f5fb; }
  .badge { display:inline-block; padding:1px 8px; border-radius:10px; font-size:12px; font-weight:600; color:#fff; background:#777; }
  .s-done { background:var(--ok); } .s-running { background:var(--accent); } .s-interrupted { background:var(--warn); }
  .s-failed { background:var(--bad); } .s-cancelled { background:#6b7280; } .s-waiting { background:#7c5cc4; }
  .live { color:var(--accent); font-weight:600; font-size:12px; }
  pre { background:#f3f5f8; border:1px solid var(--line); border-radius:6px; padding:8px; margin:0; overflow:auto; max-height:360px; font-size:12.5px; }
  .diff .add { color:var(--ok); background:#eaf7ee; display:block; }
  .diff .del { color:var(--bad); background:#fdeeee; display:block; }
  .diff .same { color:var(--muted); display:block; }
  button { font:inherit; padding:5px 12px; border-radius:6px; border:1px solid var(--line); background:#fff; cursor:pointer; }
  button.primary { background:var(--accent); color:#fff; border-color:var(--accent); }
  button:disabled { opacity:.5; cursor:default; }
  input, select, textarea { font:inherit; padding:4px 6px; border:1px solid var(--line); border-radius:6px; }
  textarea { width:100%; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size:12.5px; }
  .row { display:flex; gap:8px; align-items:center; flex-wrap:wrap; }
  .muted { color:var(--muted); } .err { color:var(--bad); } .mono { font-family: ui-monospace, Menlo, monospace; }
  #graph { overflow:auto; text-align:center; }
  #graph svg { max-width:100%; height:auto; }
  .grid2 { display:grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap:14px; }
  .sizes span { display:inline-block; margin-right:6px; }
  #interrupt { border-color: var(--warn); }
  #msg { min-height:18px; }
  details summary { cursor:pointer; color:var(--muted); }
</style>
</head>
<body>
<header><h1>graphengine inspector</h1><span class="sub">__TITLE__</span><span id="conn" class="sub"></span></header>
<main>
  <section>
    <div class="card">
      <h2>Runs</h2>
      <div class="row" style="margin-bottom:8px">
        <select id="status-filter" aria-label="status filter">
          <option value="">all statuses</option><option>running</option><option>interrupted</option>
          <option>waiting</option><option>done</option><option>failed</option><option>cancelled</option>
        </select>
        <input id="prefix-filter" placeholder="run id starts with" size="14" aria-label="run id prefix">
        <button id="refresh">Refresh</button>
      </div>
      <table id="runs"><thead><tr><th>run</th><th>status</th><th>updated</th></tr></thead><tbody></tbody></table>
      <p id="runs-empty" class="muted" hidden>No runs yet.</p>
      <p id="runs-more" class="muted" hidden><span id="runs-range"></span>
        <button id="runs-newer">newer</button> <button id="runs-older">older</button></p>
    </div>
    <div class="card">
      <h2>Start a run</h2>
      <div class="row" style="margin-bottom:6px"><input id="new-id" placeholder="run id (optional)" size="20" aria-label="new run id"></div>
      <textarea id="new-state" rows="4" aria-label="initial state">{}</textarea>
      <div class="row" style="margin-top:6px"><button class="primary" id="start">Start</button></div>
      <pre id="start-err" class="err" hidden></pre>
    </div>
  </section>
  <section id="detail">
    <div class="card" id="empty"><p class="muted">Select a run on the left, or start one.</p></div>
    <div id="run" hidden>
      <div class="card">
        <div class="row" style="justify-content:space-between">
          <div class="row"><strong class="mono" id="run-id"></strong><span id="run-status" class="badge"></span>
            <span id="run-live" class="live"></span><span id="run-steps" class="muted"></span></div>
          <div class="row"><button id="resume">Resume</button><button id="cancel">Cancel</button><button id="replay">Replay</button></div>
        </div>
        <div id="run-error" class="err" style="margin-top:6px"></div>
        <div id="msg" class="muted"></div>
        <pre id="replay-out" hidden></pre>
      </div>
      <div class="card" id="interrupt" hidden>
        <h2>Waiting for input</h2>
        <p>Node <strong class="mono" id="int-node"></strong> <span id="int-kind" class="muted"></span> asks:</p>
        <pre id="int-payload"></pre>
        <p style="margin:10px 0 4px">Answer (JSON):</p>
        <textarea id="int-input" rows="3" aria-label="answer">null</textarea>
        <div class="row" style="margin-top:6px"><button class="primary" id="answer">Resume with this answer</button></div>
      </div>
      <div class="card" id="waitcard" hidden>
        <h2>Waiting</h2>
        <p id="wait-what"></p>
        <p style="margin:10px 0 4px">Signals received:</p>
        <pre id="wait-signals"></pre>
        <p style="margin:10px 0 4px">Send a signal (name, JSON payload):</p>
        <input id="sig-name" placeholder="signal name" size="16" aria-label="signal name">
        <textarea id="sig-payload" rows="2" aria-label="signal payload">null</textarea>
        <div class="row" style="margin-top:6px"><button class="primary" id="send-signal">Send signal</button></div>
      </div>
      <div class="card">
        <h2>Graph <span class="muted" style="text-transform:none">(visited path in green, current node outlined orange)</span></h2>
        <div id="graph"></div>
        <details style="margin-top:8px"><summary>DOT / Mermaid text</summary>
          <div class="grid2" style="margin-top:6px"><pre id="dot-text"></pre><pre id="mermaid-text"></pre></div></details>
      </div>
      <div class="card">
        <h2>Steps</h2>
        <table id="steps"><thead><tr><th>#</th><th>node</th><th>route</th><th>attempt</th><th>time</th><th>error</th><th>bytes per field</th></tr></thead><tbody></tbody></table>
        <p id="steps-empty" class="muted" hidden>No committed step yet.</p>
      </div>
      <div class="grid2">
        <div class="card"><h2 id="state-title">State</h2><pre id="state"></pre></div>
        <div class="card"><h2 id="diff-title">Changes</h2><pre id="diff" class="diff"></pre></div>
      </div>
    </div>
  </section>
</main>
<script>
"use strict";
const $ = (id) => document.getElementById(id);
let current = null, runData = null, steps = [], selStep = null, es = null, pending = null;

async function api(path, opts) {
  const r = await fetch(path, Object.assign({credentials: "same-origin"}, opts || {}));
  const ct = r.headers.get("content-type") || "";
  const body = ct.includes("json") ? await r.json() : await r.text();
  if (!r.ok) {
    const d = body && body.detail !== undefined ? body.detail : body;
    const e = new Error(typeof d === "string" ? d : JSON.stringify(d, null, 2));
    e.status = r.status; throw e;
  }
  return body;
}
const post = (path, body) => api(path, {method: "POST", headers: {"content-type": "application/json"},
                                        body: JSON.stringify(body === undefined ? {} : body)});
const enc = encodeURIComponent;
const fmtTime = (ts) => ts ? new Date(ts * 1000).toLocaleString() : "";
const fmtMs = (ms) => ms == null ? "" : ms < 1000 ? ms.toFixed(ms < 10 ? 2 : 0) + " ms" : (ms / 1000).toFixed(2) + " s";
const pretty = (v) => JSON.stringify(v, null, 2);
function el(tag, text, cls) { const e = document.createElement(tag); if (text != null) e.textContent = text; if (cls) e.className = cls; return e; }
function badge(node, status) { node.textContent = status; node.className = "badge s-" + status; }

const RUNS_PAGE = 200;
let runsOffset = 0;
async function loadRuns() {
  const q = new URLSearchParams({limit: String(RUNS_PAGE), offset: String(runsOffset)});
  if ($("status-filter").value) q.set("status", $("status-filter").value);
  if ($("prefix-filter").value) q.set("prefix", $("prefix-filter").value);
  let runs, more = false;
  try {
    const r = await fetch("/api/runs?" + q, {credentials: "same-origin"});
    if (!r.ok) { const b = await r.json().catch(() => ({})); throw new Error(b.detail ? String(b.detail) : r.statusText); }
    more = r.headers.get("x-more-runs") === "true";
    runs = await r.json(); $("conn").textContent = "";
  }
  catch (e) { $("conn").textContent = "· " + e.message; return; }
  const tb = $("runs").tBodies[0]; tb.replaceChildren();
  for (const r of runs) {
    const tr = el("tr"); tr.dataset.run = r.run_id;
    if (r.run_id === current) tr.className = "sel";
    const id = el("td", r.run_id, "mono");
    const st = el("td"); const b = el("span"); badge(b, r.status); st.append(b);
    if (r.live) st.append(" ", el("span", "live", "live"));
    tr.append(id, st, el("td", fmtTime(r.updated_at), "muted"));
    tr.onclick = () => select(r.run_id);
    tb.append(tr);
  }
  $("runs-empty").hidden = runs.length > 0;
  // a list that stops at its page size says so, and pages on
  $("runs-more").hidden = !more && runsOffset === 0;
  $("runs-range").textContent = `runs ${runsOffset + 1}-${runsOffset + runs.length}, newest first` + (more ? "; more follow" : "");
  $("runs-newer").disabled = runsOffset === 0; $("runs-older").disabled = !more;
}

function select(id) { location.hash = "run=" + enc(id); }

function fromHash() {
  const m = /run=([^&]*)(?:&step=(\d+))?/.exec(location.hash);
  const id = m ? decodeURIComponent(m[1]) : null;
  if (id !== current) { current = id; selStep = m && m[2] ? Number(m[2]) : null; closeStream(); loadRun(); loadRuns(); }
}

async function loadRun() {
  $("empty").hidden = !!current; $("run").hidden = !current;
  if (!current) return;
  const id = current;
  let d, h;
  try { [d, h] = await Promise.all([api("/api/runs/" + enc(id)), api("/api/runs/" + enc(id) + "/history")]); }
  catch (e) { $("msg").textContent = e.message; return; }
  if (id !== current) return;
  runData = d; steps = h;
  $("run-id").textContent = d.run_id; badge($("run-status"), d.status);
  $("run-live").textContent = d.live ? "● live" : "";
  $("run-steps").textContent = d.steps + " step" + (d.steps === 1 ? "" : "s") + (d.forked_from ? " · forked from " + d.forked_from : "");
  $("run-error").textContent = d.error ? (d.error_node ? d.error_node + ": " : "") + d.error : "";
  $("cancel").disabled = !d.live; $("resume").disabled = d.live || d.status === "done";
  $("replay").disabled = d.live;
  renderInterrupt(d); renderWait(d); renderSteps(); loadGraph(id);
  const k = selStep == null || selStep > d.steps ? d.steps : selStep;
  showStep(k);
  if (d.live) openStream(id);
}

function renderInterrupt(d) {
  const it = d.interrupt; $("interrupt").hidden = !it || d.live;
  if (!it) return;
  $("int-node").textContent = it.node_id;
  $("int-kind").textContent = it.before ? "(paused before it runs)" : "(interrupted at step " + it.step + ")";
  $("int-payload").textContent = it.payload === null ? "(no payload: approve to continue)" : pretty(it.payload);
}

async function renderWait(d) {
  const w = d.wait; $("waitcard").hidden = !w;
  if (!w) return;
  const parts = [];
  if (w.signal) parts.push("the signal " + w.signal);
  if (w.until != null) parts.push("until " + new Date(w.until * 1000).toISOString());
  $("wait-what").textContent = "Waiting for " + parts.join(", or ");
  if (w.signal) $("sig-name").value = w.signal;
  try {
    const sigs = await api("/api/runs/" + enc(d.run_id) + "/signals");
    $("wait-signals").textContent = sigs.length ? sigs.map((g) => g.name + " (" + g.id + ")" +
      (g.taken_step == null ? " buffered" : " taken at step " + g.taken_step) + ": " + JSON.stringify(g.payload)).join("\n") : "(none)";
  } catch (e) { $("wait-signals").textContent = e.message; }
}

function renderSteps() {
  const tb = $("steps").tBodies[0]; tb.replaceChildren();
  for (const s of steps) {
    const tr = el("tr"); tr.dataset.step = s.step;
    if (s.step === selStep) tr.className = "sel";
    const sizes = el("td", null, "sizes mono");
    for (const [f, n] of Object.entries(s.sizes || {})) sizes.append(el("span", f + " " + n + " B"));
    const time = s.node_ms != null ? fmtMs(s.node_ms) : fmtMs(s.elapsed_ms);
    tr.append(el("td", String(s.step)), el("td", s.node_id, "mono"), el("td", s.route.text, "mono muted"),
              el("td", String(s.attempt)), el("td", time, "muted"), el("td", s.error || "", "err"), sizes);
    tr.onclick = () => showStep(s.step);
    tb.append(tr);
  }
  $("steps-empty").hidden = steps.length > 0;
}

async function loadGraph(id) {
  try {
    const [svg, dot, mmd] = await Promise.all([
      api("/api/graph?format=svg&run=" + enc(id)), api("/api/graph?format=dot&run=" + enc(id)),
      api("/api/graph?format=mermaid&run=" + enc(id))]);
    if (id !== current) return;
    $("graph").innerHTML = svg;  // rendered by this server from the engine's own graph
    $("dot-text").textContent = dot; $("mermaid-text").textContent = mmd;
  } catch (e) { $("graph").textContent = e.message; }
}

function diffLines(before, after) {
  const out = [];
  const keys = Array.from(new Set([...Object.keys(before || {}), ...Object.keys(after || {})]));
  for (const k of keys) {
    const a = before ? before[k] : undefined, b = after ? after[k] : undefined;
    const ja = JSON.stringify(a), jb = JSON.stringify(b);
    if (ja === jb) { out.push(["same", "  " + k + ": " + short(ja)]); continue; }
    if (a !== undefined) out.push(["del", "- " + k + ": " + JSON.stringify(a, null, 2).replace(/\n/g, "\n    ")]);
    if (b !== undefined) out.push(["add", "+ " + k + ": " + JSON.stringify(b, null, 2).replace(/\n/g, "\n    ")]);
  }
  return out;
}
function short(s) { return s && s.length > 80 ? s.slice(0, 77) + "..." : s; }

async function showStep(k) {
  selStep = k;
  for (const tr of $("steps").tBodies[0].rows) tr.className = Number(tr.dataset.step) === k ? "sel" : "";
  const id = current; const base = "/api/runs/" + enc(id) + "/state?step=";
  try {
    const [after, before] = await Promise.all([api(base + k), k > 0 ? api(base + (k - 1)) : Promise.resolve(null)]);
    if (id !== current) return;
    $("state-title").textContent = k === 0 ? "State: initial" : "State after step " + k;
    $("state").textContent = pretty(after);
    const s = steps.find((x) => x.step === k);
    $("diff-title").textContent = k === 0 ? "Changes" : "Changes of step " + k + (s ? " (" + s.node_id + ")" : "");
    const d = $("diff"); d.replaceChildren();
    if (k === 0) { d.append(el("span", "the initial state: no step yet", "same")); return; }
    const lines = diffLines(before, after);
    if (!lines.some((l) => l[0] !== "same")) d.append(el("span", "(no change)", "same"));
    for (const [cls, text] of lines) d.append(el("span", text, cls));
  } catch (e) { $("state").textContent = e.message; }
}

function closeStream() { if (es) { es.close(); es = null; } }
function openStream(id) {
  if (es) return;
  es = new EventSource("/api/runs/" + enc(id) + "/events");
  const refresh = () => { clearTimeout(pending); pending = setTimeout(() => { if (id === current) { selStep = null; loadRun(); loadRuns(); } }, 150); };
  for (const kind of ["step", "node_start", "node_end", "interrupt", "error", "retry", "run_end", "failed"]) {
    es.addEventListener(kind, (ev) => { if (kind !== "node_start") refresh(); const d = JSON.parse(ev.data);
      $("msg").textContent = "live: " + d.kind + (d.node_id ? " " + d.node_id : "") + (d.step ? " (step " + d.step + ")" : ""); });
  }
  let said = "";  // the streamed answer so far (token events), shown while the model writes it
  es.addEventListener("token", (ev) => { const d = JSON.parse(ev.data); said += d.msg;
    $("msg").textContent = "live: " + d.node_id + " says " + said.slice(-80); });
  es.addEventListener("step", () => { said = ""; });
  es.addEventListener("end", () => { closeStream(); $("msg").textContent = ""; refresh(); });
  es.onerror = () => { closeStream(); };
}

async function act(fn) {
  $("msg").textContent = ""; $("msg").className = "muted";
  try { await fn(); } catch (e) { $("msg").textContent = e.message; $("msg").className = "err"; }
  selStep = null; await loadRun(); await loadRuns();
}
$("resume").onclick = () => act(() => post("/api/runs/" + enc(current) + "/resume"));
$("cancel").onclick = () => act(() => post("/api/runs/" + enc(current) + "/cancel"));
$("replay").onclick = async () => {
  const out = $("replay-out"); out.hidden = false; out.textContent = "replaying...";
  try { const r = await post("/api/runs/" + enc(current) + "/replay"); out.textContent = r.text; out.className = r.ok ? "" : "err"; }
  catch (e) { out.textContent = e.message; out.className = "err"; }
};
$("answer").onclick = () => {
  let input;
  try { input = JSON.parse($("int-input").value); } catch (e) { $("msg").textContent = "the answer is not JSON: " + e.message; $("msg").className = "err"; return; }
  act(() => post("/api/runs/" + enc(current) + "/resume", {input}));
};
$("start").onclick = async () => {
  const err = $("start-err"); err.hidden = true;
  let state;
  try { state = JSON.parse($("new-state").value || "{}"); } catch (e) { err.hidden = false; err.textContent = "not JSON: " + e.message; return; }
  const body = {state}; if ($("new-id").value) body.run_id = $("new-id").value;
  try { const d = await post("/api/runs", body); select(d.run_id); await loadRuns(); }
  catch (e) { err.hidden = false; err.textContent = e.message; }
};
$("send-signal").onclick = () => {
  let payload;
  try { payload = JSON.parse($("sig-payload").value || "null"); } catch (e) { $("msg").textContent = "the payload is not JSON: " + e.message; $("msg").className = "err"; return; }
  act(() => post("/api/runs/" + enc(current) + "/signals", {name: $("sig-name").value, payload}));
};
$("refresh").onclick = loadRuns;
$("status-filter").onchange = () => { runsOffset = 0; loadRuns(); };
$("prefix-filter").oninput = () => { runsOffset = 0; loadRuns(); };
$("runs-older").onclick = () => { runsOffset += RUNS_PAGE; loadRuns(); };
$("runs-newer").onclick = () => { runsOffset = Math.max(0, runsOffset - RUNS_PAGE); loadRuns(); };
window.addEventListener("hashchange", fromHash);
setInterval(loadRuns, 5000);
loadRuns(); fromHash(); if (!current) { $("empty").hidden = false; }
</script>
</body>
</html>
"""
