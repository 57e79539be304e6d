// The live console's page. Every node is built with createElement and textContent: logged
// text is attacker-controlled and is never parsed as markup. The state of a view (tab, filters,
// selected message or task) lives in the URL fragment, so every state has a permalink; the
// fragment never reaches the server, the API calls carry the filters as query parameters.
"use strict";

const LEVELS = ["trace", "debug", "info", "notice", "warning", "error", "critical"];
const TABS = ["messages", "tasks", "host", "history", "files"];
const MESSAGE_FILTERS = ["level", "maxLevel", "label", "session", "since", "until", "q", "syntax", "task"];
// NetworkTaskState's raw values.
const TASK_STATES = ["pending", "success", "failure"];
const TASK_FILTERS = ["host", "method", "status", "failed", "q", "label"];

function el(tag, attributes, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "class") node.className = value;
    // Through the CSSOM: the Content-Security-Policy refuses style attributes.
    else if (name === "style") Object.assign(node.style, value);
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}

async function api(path, parameters) {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(parameters || {})) {
    if (value !== undefined && value !== null && value !== "") query.set(name, value);
  }
  const url = query.toString() ? `${path}?${query}` : path;
  const response = await fetch(url, { credentials: "same-origin" });
  const body = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
  if (!response.ok) throw new Error(body.error || `HTTP ${response.status}`);
  return body;
}

function formatTime(seconds) {
  const date = new Date(seconds * 1000);
  const pad = (n, w = 2) => String(n).padStart(w, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ` +
    `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
}

function formatBytes(bytes) {
  if (bytes === undefined || bytes === null) return "";
  const units = ["B", "KB", "MB", "GB", "TB"];
  let value = bytes, unit = 0;
  while (value >= 1000 && unit < units.length - 1) { value /= 1000; unit += 1; }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

function formatDuration(seconds) {
  if (seconds === undefined || seconds === null) return "";
  return seconds < 1 ? `${(seconds * 1000).toFixed(1)} ms` : `${seconds.toFixed(2)} s`;
}

function formatUptime(seconds) {
  const days = Math.floor(seconds / 86400), hours = Math.floor((seconds % 86400) / 3600), minutes = Math.floor((seconds % 3600) / 60);
  return days ? `${days} d ${hours} h` : hours ? `${hours} h ${minutes} min` : `${minutes} min`;
}

// The fragment: "#messages?level=warning&q=timeout&message=42".
function readState() {
  const hash = location.hash.replace(/^#/, "");
  const [tab, query] = hash.split("?", 2);
  return { tab: TABS.includes(tab) ? tab : "messages", parameters: new URLSearchParams(query || "") };
}

function writeState(tab, parameters) {
  const query = parameters.toString();
  const hash = `#${tab}${query ? "?" + query : ""}`;
  if (location.hash !== hash) history.replaceState(null, "", hash);
}

function pick(parameters, names) {
  const picked = {};
  for (const name of names) {
    const value = parameters.get(name);
    if (value) picked[name] = value;
  }
  return picked;
}

// `level=` as the API reads it (LogStore.Level.range(parsing:), shared with `--level` and the
// exported page): `warning` is warning and above, `info...error` a range. A trailing `+` or
// space changes nothing: `#messages?level=warning+`, the documented form, arrives here as
// "warning " (a fragment read as a query turns `+` into a space) and `warning%2B` as "warning+".
// Returns the plain form the level menu offers (`warning`, `info...error`), or null when the
// text names no level (the API then says what is wrong with it).
function levelFilter(text) {
  const name = (part) => {
    const lowered = part.trim().replace(/[+\s]+$/, "").toLowerCase();
    return lowered === "warn" ? "warning" : lowered;
  };
  const parts = text.split("...");
  if (parts.length > 2) return null;
  const low = LEVELS.indexOf(name(parts[0])), high = parts.length === 2 ? LEVELS.indexOf(name(parts[1])) : LEVELS.length - 1;
  if (low < 0 || high < low) return null;
  return high === LEVELS.length - 1 ? LEVELS[low] : `${LEVELS[low]}...${LEVELS[high]}`;
}

// The messages' order, `order=oldest` or (the default, as `logstore messages` lists them)
// newest first.
function messageOrder() {
  return state.parameters.get("order") === "oldest" ? "oldest" : "newest";
}

// ---------------------------------------------------------------- the frame

const state = { tab: "messages", parameters: new URLSearchParams(), live: null, hostTimer: null };
const main = el("main", { id: "view" });
const status = el("span", { id: "status", role: "status" });

function setStatus(text, isError) {
  status.textContent = text || "";
  status.className = isError ? "error" : "";
}

function frame() {
  const hasFiles = document.body.dataset.files === "1";
  const tabs = el("nav", { id: "tabs" },
    TABS.filter((tab) => tab !== "files" || hasFiles).map((tab) =>
      el("a", { href: `#${tab}`, "data-tab": tab }, tab[0].toUpperCase() + tab.slice(1))));
  const header = el("header", {}, el("strong", {}, "LogStore"), el("span", { id: "store" }), tabs, status);
  document.body.append(header, main);
  api("api/info").then((info) => {
    document.getElementById("store").textContent =
      `${info.messageCount ?? ""} messages · ${info.taskCount ?? ""} tasks`;
  }).catch((error) => setStatus(error.message, true));
  window.addEventListener("hashchange", render);
  render();
}

function render() {
  const next = readState();
  state.tab = next.tab;
  state.parameters = next.parameters;
  stopLive();
  if (state.hostTimer) { clearInterval(state.hostTimer); state.hostTimer = null; }
  for (const link of document.querySelectorAll("#tabs a")) {
    link.classList.toggle("active", link.dataset.tab === state.tab);
  }
  clear(main);
  setStatus("");
  ({ messages: renderMessages, tasks: renderTasks, host: renderHost, history: renderHistory, files: renderFiles })[state.tab]();
}

// ---------------------------------------------------------------- messages

function filterBar(names, onApply) {
  const inputs = {};
  const field = (name, label, input) => { inputs[name] = input; return el("label", {}, label, input); };
  const level = el("select", { name: "level" }, el("option", { value: "" }, "any"),
    LEVELS.map((name) => el("option", { value: name }, `≥ ${name}`)));
  const fields = [];
  for (const name of names) {
    if (name === "level") fields.push(field("level", "Level ", level));
    else if (name === "failed") {
      fields.push(field("failed", "Failed ", el("select", { name: "failed" }, el("option", { value: "" }, "any"),
        el("option", { value: "true" }, "failed"), el("option", { value: "false" }, "succeeded"))));
    } else if (name !== "maxLevel" && name !== "syntax" && name !== "session") {
      fields.push(field(name, `${name === "q" ? "Search" : name[0].toUpperCase() + name.slice(1)} `,
        el("input", { name, type: "search", size: name === "q" ? 24 : 10, placeholder: name === "since" || name === "until" ? "ISO time" : "" })));
    }
  }
  for (const [name, input] of Object.entries(inputs)) input.value = state.parameters.get(name) || "";
  const shown = state.parameters.get("level");
  if (inputs.level && shown) {
    // The menu shows the level in force, whichever way the link spelled it; a range, or text
    // that names no level, as an entry of its own.
    const plain = levelFilter(shown);
    if (!LEVELS.includes(plain)) {
      level.append(el("option", { value: plain || shown }, plain ? plain.replace("...", " … ") : shown));
    }
    level.value = plain || shown;
  }
  const form = el("form", { class: "filters", onsubmit: (event) => {
    event.preventDefault();
    const parameters = new URLSearchParams();
    for (const [name, value] of state.parameters) if (!names.includes(name) && name !== "message" && name !== "task") parameters.set(name, value);
    for (const [name, input] of Object.entries(inputs)) if (input.value) parameters.set(name, input.value);
    onApply(parameters);
  } }, fields, el("button", { type: "submit" }, "Apply"));
  return form;
}

function renderMessages() {
  const filters = pick(state.parameters, MESSAGE_FILTERS);
  const list = el("table", { class: "messages" }, el("tbody"));
  const more = el("button", { type: "button", hidden: true }, "More");
  const liveToggle = el("button", { type: "button", id: "live" }, "Follow live");
  // The button says the order in force; its title, what a click does.
  const order = messageOrder(), other = order === "newest" ? "oldest" : "newest";
  const sort = el("button", { type: "button", id: "order", title: `Sorted ${order} first; click to sort ${other} first`,
    "aria-label": `Sorted ${order} first; sort ${other} first` }, `Sorted: ${order} first ⇅`);
  sort.addEventListener("click", () => {
    const parameters = new URLSearchParams(state.parameters);
    if (other === "oldest") parameters.set("order", "oldest"); else parameters.delete("order");
    parameters.delete("live");
    writeState("messages", parameters);
    render();
  });
  const histogram = el("div", { class: "histogram", title: "Drag across the bars to zoom into that time" });
  const downloads = el("span", { class: "downloads" }, "Download: ",
    ["archive", "ndjson", "text", "html"].map((format) => {
      const query = new URLSearchParams({ ...filters, format });
      return el("a", { href: `download?${query}`, download: "" }, format);
    }));
  const details = el("aside", { id: "details" });
  main.append(
    filterBar(MESSAGE_FILTERS, (parameters) => { writeState("messages", parameters); render(); }),
    el("div", { class: "toolbar" }, sort, liveToggle, downloads),
    histogram, el("div", { class: "split" }, el("div", { class: "list" }, list, more), details));

  let cursor = null;
  const body = list.tBodies[0];
  const load = async () => {
    try {
      const page = await api("api/messages", { ...filters, order: order === "oldest" ? "oldest" : null, cursor, limit: 200 });
      for (const message of page.messages) body.append(messageRow(message, details));
      cursor = page.next || null;
      more.hidden = !cursor;
      setStatus(body.rows.length ? "" : "No message matches.");
    } catch (error) { setStatus(error.message, true); }
  };
  more.addEventListener("click", load);
  const loaded = load();
  loadHistogram(histogram, filters);
  // Following is part of the view's state (`live=1`): a permalink can open a live view.
  // The tail puts new messages on top, so following lists newest first.
  const follow = (on) => {
    const parameters = new URLSearchParams(state.parameters);
    if (on && order === "oldest") {
      parameters.delete("order");
      parameters.set("live", "1");
      writeState("messages", parameters);
      render();
      return;
    }
    if (on) parameters.set("live", "1"); else parameters.delete("live");
    writeState("messages", parameters);
    state.parameters = parameters;
    liveToggle.textContent = on ? "Stop following" : "Follow live";
    if (on) startLive(filters, body, details); else stopLive();
  };
  liveToggle.addEventListener("click", () => follow(!state.live));
  if (state.parameters.get("live") === "1") loaded.then(() => follow(true));
  const selected = state.parameters.get("message");
  if (selected) showMessage(Number(selected), details);
}

function messageRow(message, details) {
  const text = el("td", { class: "text" });
  appendHighlighted(text, message.text, message.matches);
  const row = el("tr", { class: `level-${message.level}`, "data-id": message.id, tabindex: 0 },
    el("td", { class: "time" }, formatTime(message.time)),
    el("td", { class: "level" }, message.level),
    el("td", { class: "label" }, message.label),
    text);
  row.addEventListener("click", () => {
    for (const selected of row.parentNode.querySelectorAll("tr.current")) selected.classList.remove("current");
    row.classList.add("current");
    const parameters = new URLSearchParams(state.parameters);
    parameters.set("message", message.id);
    writeState("messages", parameters);
    state.parameters = parameters;
    showMessage(message.id, details, message);
  });
  return row;
}

function appendHighlighted(node, text, matches) {
  let at = 0;
  for (const [start, end] of matches || []) {
    if (start < at) continue;
    node.append(text.slice(at, start), el("mark", {}, text.slice(start, end)));
    at = end;
  }
  node.append(text.slice(at));
}

async function showMessage(id, details, known) {
  clear(details);
  let message = known;
  try {
    if (!message) message = await api(`api/messages/${encodeURIComponent(id)}`);
  } catch (error) { details.append(el("p", { class: "error" }, error.message)); return; }
  const permalink = `${location.pathname}#messages?message=${message.id}`;
  const context = el("div", { class: "context" });
  details.append(...[
    el("h2", {}, `${message.level} · ${message.label}`),
    el("p", { class: "time" }, formatTime(message.time)),
    el("pre", { class: "message-text" }, message.text),
    message.metadata ? el("div", {}, el("h3", {}, "Metadata"), metadataTree(message.metadata)) : null,
    el("dl", {},
      el("dt", {}, "Source"), el("dd", {}, message.file ? `${message.file}:${message.line ?? ""} ${message.function ?? ""}` : "—"),
      el("dt", {}, "Thread"), el("dd", {}, message.threadName || message.thread || "—"),
      el("dt", {}, "Session"), el("dd", {}, message.session),
      el("dt", {}, "Cursor"), el("dd", {}, message.cursor)),
    el("p", {}, el("a", { href: permalink }, "Permalink"), " · ",
      el("button", { type: "button", onclick: () => showContext(message.id, context) }, "Show context")),
    context,
  ].filter(Boolean));
}

function metadataTree(value) {
  if (value === null || typeof value !== "object") return el("span", { class: "value" }, String(value));
  const entries = Array.isArray(value) ? value.map((item, index) => [index, item]) : Object.entries(value).sort();
  return el("ul", { class: "tree" }, entries.map(([key, item]) =>
    el("li", {}, el("span", { class: "key" }, `${key}: `), metadataTree(item))));
}

async function showContext(id, container) {
  clear(container);
  try {
    const page = await api("api/context", { id, count: 10 });
    container.append(el("table", { class: "messages context" }, el("tbody", {}, page.messages.map((message) => {
      const row = el("tr", { class: `level-${message.level}${message.id === id ? " current" : ""}` },
        el("td", { class: "time" }, formatTime(message.time)), el("td", { class: "level" }, message.level),
        el("td", { class: "label" }, message.label), el("td", { class: "text" }, message.text));
      return row;
    }))));
  } catch (error) { container.append(el("p", { class: "error" }, error.message)); }
}

async function loadHistogram(container, filters) {
  try {
    const summary = await api("api/summary", { ...filters, buckets: 60 });
    const buckets = summary.histogram || [];
    const peak = Math.max(1, ...buckets.map((bucket) => LEVELS.reduce((sum, level) => sum + (bucket.levels[level] || 0), 0)));
    clear(container);
    const bars = buckets.map((bucket) => {
      const stack = el("div", { class: "bar", title: `${formatTime(bucket.start)}: ${LEVELS.map((level) => bucket.levels[level] ? `${bucket.levels[level]} ${level}` : "").filter(Boolean).join(", ")}` });
      for (const level of LEVELS.slice().reverse()) {
        const count = bucket.levels[level] || 0;
        if (count) stack.append(el("div", { class: `segment level-${level}`, style: { height: `${(count / peak) * 100}%` } }));
      }
      return stack;
    });
    container.append(...bars);
    brush(container, bars, buckets);
  } catch (error) { setStatus(error.message, true); }
}

// Dragging across bars zooms the view to their time span (a permalink like any filter).
function brush(container, bars, buckets) {
  let from = null;
  const mark = (to) => bars.forEach((bar, index) => bar.classList.toggle("brushed", from !== null && index >= Math.min(from, to) && index <= Math.max(from, to)));
  bars.forEach((bar, index) => {
    bar.addEventListener("mousedown", (event) => { event.preventDefault(); from = index; mark(index); });
    bar.addEventListener("mouseenter", () => { if (from !== null) mark(index); });
    bar.addEventListener("mouseup", () => {
      if (from === null) return;
      const low = buckets[Math.min(from, index)], high = buckets[Math.max(from, index)];
      from = null;
      const parameters = new URLSearchParams(state.parameters);
      parameters.delete("message");
      parameters.set("since", new Date(low.start * 1000).toISOString());
      parameters.set("until", new Date(high.end * 1000).toISOString());
      writeState("messages", parameters);
      render();
    });
  });
  container.addEventListener("mouseleave", () => { from = null; mark(-1); });
}

// The live tail: newest on top, as the list shows them. EventSource reconnects by itself and
// sends the last event's id, so the server resumes right after it.
function startLive(filters, body, details) {
  const query = new URLSearchParams(filters);
  const newest = body.rows.length ? body.rows[0].dataset.id : null;
  if (newest) query.set("after", `m${newest}`);
  const source = new EventSource(`api/tail?${query}`);
  state.live = source;
  source.addEventListener("message", (event) => {
    const message = JSON.parse(event.data);
    body.insertBefore(messageRow(message, details), body.firstChild);
    setStatus(`Following: ${message.label} ${formatTime(message.time)}`);
  });
  source.addEventListener("gap", (event) => {
    const gap = JSON.parse(event.data);
    body.insertBefore(el("tr", { class: "gap" }, el("td", { colspan: 4 }, `Messages ${gap.from}–${gap.to} were removed before they could be shown.`)), body.firstChild);
  });
  source.addEventListener("error", () => setStatus("Live tail: reconnecting…", true));
}

function stopLive() {
  if (state.live) { state.live.close(); state.live = null; }
}

// ---------------------------------------------------------------- tasks

function renderTasks() {
  const filters = pick(state.parameters, TASK_FILTERS);
  const table = el("table", { class: "tasks" },
    el("thead", {}, el("tr", {}, ["Time", "Method", "Status", "URL", "Duration", "Size"].map((name) => el("th", {}, name)))),
    el("tbody"));
  const details = el("aside", { id: "details" });
  const more = el("button", { type: "button", hidden: true }, "More");
  main.append(filterBar(TASK_FILTERS, (parameters) => { writeState("tasks", parameters); render(); }),
    el("div", { class: "split" }, el("div", { class: "list" }, table, more), details));
  let cursor = null;
  const load = async () => {
    try {
      const page = await api("api/tasks", { ...filters, cursor, limit: 200 });
      for (const task of page.tasks) {
        const failed = task.error || (task.statusCode || 0) >= 400;
        const row = el("tr", { class: failed ? "failed" : "", tabindex: 0 },
          el("td", { class: "time" }, formatTime(task.createdAt)),
          el("td", {}, task.method || ""),
          el("td", { class: "number" }, taskStatus(task)),
          el("td", { class: "text" }, task.url || ""),
          el("td", { class: "number" }, formatDuration(task.duration)),
          el("td", { class: "number" }, task.progress && TASK_STATES[task.state] === "pending"
            ? `${formatBytes(task.progress.completed)} of ${formatBytes(task.progress.total)}` : formatBytes(task.responseBodySize)));
        row.addEventListener("click", () => {
          const parameters = new URLSearchParams(state.parameters);
          parameters.set("task", task.id);
          writeState("tasks", parameters);
          state.parameters = parameters;
          showTask(task.id, details);
        });
        table.tBodies[0].append(row);
      }
      cursor = page.next || null;
      more.hidden = !cursor;
      setStatus(table.tBodies[0].rows.length ? "" : "No task matches.");
    } catch (error) { setStatus(error.message, true); }
  };
  more.addEventListener("click", load);
  load();
  const selected = state.parameters.get("task");
  if (selected) showTask(selected, details);
}

// A finished task's status code, "error" for a failure without one, or its state.
function taskStatus(task) {
  if (task.error) return "error";
  if (task.statusCode) return task.statusCode;
  return TASK_STATES[task.state] || String(task.state);
}

async function showTask(id, details) {
  clear(details);
  let task;
  try { task = await api(`api/tasks/${encodeURIComponent(id)}`); } catch (error) {
    details.append(el("p", { class: "error" }, error.message));
    return;
  }
  const summary = task.summary;
  details.append(...[
    el("h2", {}, `${summary.method || ""} ${taskStatus(summary)}`),
    el("p", { class: "url" }, summary.url || ""),
    summary.error ? el("p", { class: "error" }, `${summary.error.domain || ""} ${summary.error.code ?? ""}: ${summary.error.debugDescription || summary.error.description || ""}`) : null,
    el("p", {}, el("a", { href: `#tasks?task=${summary.id}` }, "Permalink"), " · ",
      el("a", { href: `#messages?task=${summary.id}` }, "Its messages")),
    waterfall(task.transactions || [], task.phases || []),
    headersTable("Request headers", task.request && task.request.headers),
    bodyView("Request body", task.requestBodyKey, task.request && task.request.headers),
    headersTable("Response headers", task.response && task.response.headers),
    bodyView("Response body", task.responseBodyKey, task.response && task.response.headers),
  ].filter(Boolean));
}

function headersTable(title, headers) {
  if (!headers) return null;
  const entries = Array.isArray(headers) ? headers.map((pair) => [pair.name ?? pair[0], pair.value ?? pair[1]]) : Object.entries(headers);
  if (!entries.length) return null;  // no heading over an empty table
  return el("div", {}, el("h3", {}, title), el("table", { class: "headers" }, el("tbody", {},
    entries.map(([name, value]) => el("tr", {}, el("th", {}, name), el("td", {}, value))))));
}

function contentType(headers) {
  if (!headers) return "";
  const entries = Array.isArray(headers) ? headers.map((pair) => [pair.name ?? pair[0], pair.value ?? pair[1]]) : Object.entries(headers);
  const found = entries.find(([name]) => String(name).toLowerCase() === "content-type");
  return found ? String(found[1]).toLowerCase() : "";
}

function bodyView(title, key, headers) {
  if (!key) return null;
  const container = el("div", {}, el("h3", {}, title));
  const type = contentType(headers);
  fetch(`api/bodies/${encodeURIComponent(key)}`, { credentials: "same-origin" }).then(async (response) => {
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const bytes = await response.arrayBuffer();
    const image = ["image/png", "image/jpeg", "image/gif", "image/webp"].find((kind) => type.startsWith(kind));
    if (image) {
      container.append(el("img", { src: URL.createObjectURL(new Blob([bytes], { type: image })), alt: title }));
      return;
    }
    const text = new TextDecoder("utf-8", { fatal: false }).decode(bytes);
    let shown = text;
    if (type.includes("json")) { try { shown = JSON.stringify(JSON.parse(text), null, 2); } catch (error) { shown = text; } }
    container.append(el("pre", { class: "body" }, shown.length > 200000 ? shown.slice(0, 200000) + "\n…" : shown),
      el("a", { href: `api/bodies/${encodeURIComponent(key)}`, download: "" }, `Download (${formatBytes(bytes.byteLength)})`));
  }).catch((error) => container.append(el("p", { class: "error" }, error.message)));
  return container;
}

// As `logstore task` and the exported page write a phase: one decimal under 100 ms, whole
// milliseconds (with separators) above.
function formatMilliseconds(seconds) {
  const value = seconds * 1000;
  return value < 100 ? `${value.toFixed(1)} ms` : `${Math.round(value).toLocaleString("en-US")} ms`;
}

// Each transaction's phases as bars on one time axis. The phases are the API's (`phases`, one
// list per transaction: NetworkTransactionMetrics.phases(taskEnd:), what `logstore task` and the
// exported page draw), so a request that got no response shows its waiting up to the task's
// end, "no response", not a lone request bar. Then the transaction's total, fetch start to
// response end, when it has one. A phase without an end began and never finished.
function waterfall(transactions, phases) {
  if (!transactions.length) return null;
  const rows = transactions.map((transaction, index) => {
    const list = (phases[index] || []).map((phase) => ({ name: phase.name, start: phase.start, end: phase.end, noResponse: phase.noResponse === true }));
    const fetchStart = transaction.fetchStart, responseEnd = transaction.responseEnd;
    if (typeof fetchStart === "number" && typeof responseEnd === "number" && responseEnd >= fetchStart) {
      list.push({ name: "Total", start: fetchStart, end: responseEnd, noResponse: false });
    }
    return { transaction, phases: list.filter((phase) => typeof phase.start === "number") };
  });
  const times = rows.flatMap((row) => row.phases.flatMap((phase) => typeof phase.end === "number" ? [phase.start, phase.end] : [phase.start]));
  if (!times.length) return null;
  const start = Math.min(...times), end = Math.max(...times), span = Math.max(end - start, 1e-6);
  return el("div", { class: "waterfall" }, el("h3", {}, "Timings"), rows.map(({ transaction, phases: list }, index) => {
    const request = transaction.request || {}, response = transaction.response || {};
    const head = el("div", { class: "transaction-head" },
      `#${index + 1} ${request.method || ""} ${request.url || response.url || ""}${response.statusCode ? ` → ${response.statusCode}` : ""}`);
    const bars = el("div", { class: "bars" }, list.map((phase) => {
      const open = typeof phase.end !== "number";
      const finish = open ? end : phase.end;
      const left = ((phase.start - start) / span) * 100;
      const bar = el("span", { class: `bar phase-${phase.name.toLowerCase()}`,
        style: { left: `${Math.min(left, 99.6)}%`, width: `${Math.max(0.4, Math.min(100 - left, ((finish - phase.start) / span) * 100))}%` } });
      const text = open ? "never finished" : formatMilliseconds(phase.end - phase.start) + (phase.noResponse ? ", no response" : "");
      return el("div", { class: `bar-line${phase.noResponse ? " no-response" : ""}${open ? " unfinished" : ""}`, "data-phase": phase.name },
        el("span", { class: "bar-name" }, phase.name), el("span", { class: "bar-track" }, bar), el("span", { class: "bar-ms" }, text));
    }));
    return el("div", { class: "transaction" }, head, bars);
  }));
}

// ---------------------------------------------------------------- host, history, files

function renderHost() {
  const now = el("section", { class: "host-now" });
  const sessions = el("section", {}, el("h2", {}, "Sessions"));
  main.append(now, sessions);
  const refresh = async () => {
    try {
      const current = await api("api/host");
      const host = current.host, process = current.process;
      const facts = [["OS", host.osPrettyName || `${host.osName} ${host.osVersion}`], ["Kernel", host.kernelVersion],
        ["CPU", `${host.cpuModel} × ${host.cpuCount}`], ["Product", host.productName || "—"],
        ["Memory", `${formatBytes(host.memoryAvailable)} free of ${formatBytes(host.memoryTotal)}`],
        ["Disk", `${formatBytes(host.diskFree)} free of ${formatBytes(host.diskTotal)}`],
        ["Load", (current.load || []).map((value) => value.toFixed(2)).join(" ")],
        ["Uptime", formatUptime(host.uptime)],
        ["Process", `${process.name} (pid ${process.pid}), ${formatBytes(process.residentMemory)} resident`],
        ["Interfaces", (host.networkInterfaces || []).map((item) => [item.name, item.addresses.join(", ")].filter(Boolean).join(" ")).join("; ")]];
      clear(now).append(el("h2", {}, host.hostname || "This machine"),
        el("dl", {}, facts.flatMap(([name, value]) => [el("dt", {}, name), el("dd", {}, value)])));
    } catch (error) { setStatus(error.message, true); }
  };
  refresh();
  state.hostTimer = setInterval(refresh, 5000);
  api("api/sessions").then((list) => {
    sessions.append(el("table", { class: "sessions" },
      el("thead", {}, el("tr", {}, ["Started", "App", "Host", "Changes"].map((name) => el("th", {}, name)))),
      el("tbody", {}, list.slice().reverse().map((session) => el("tr", { class: session.hostChanges && session.hostChanges.length ? "changed" : "" },
        el("td", {}, formatTime(session.startDate)),
        el("td", {}, `${session.app.name} ${session.app.version || ""}`),
        el("td", {}, `${session.host.hostname} · ${session.host.osPrettyName} · ${session.host.kernelVersion}`),
        el("td", {}, (session.hostChanges || []).join("; ")))))));
  }).catch((error) => setStatus(error.message, true));
}

function renderHistory() {
  api("api/history").then((status) => {
    main.append(el("pre", { class: "history" }, JSON.stringify(status, null, 2)));
  }).catch((error) => setStatus(error.message, true));
}

// Paths travel percent-encoded segment by segment (`a%20b/c.txt`), as the API lists them.
function renderFiles() {
  const path = state.parameters.get("path") || "";
  const listing = el("section", { class: "files" });
  const preview = el("aside", { id: "details" });
  main.append(el("div", { class: "split" }, listing, preview));
  const showListing = (directory, answer) => {
    const crumbs = [el("a", { href: "#files" }, "/")];
    directory.split("/").filter(Boolean).reduce((sofar, part) => {
      const next = sofar ? `${sofar}/${part}` : part;
      crumbs.push(" ", el("a", { href: `#files?path=${encodeURIComponent(next)}` }, decodeURIComponent(part)));
      return next;
    }, "");
    listing.append(...[el("p", { class: "crumbs" }, crumbs), el("table", {}, el("tbody", {}, answer.entries.map((entry) => {
      const name = entry.name + (entry.directory ? "/" : "");
      const link = entry.path ? el("a", { href: `#files?path=${encodeURIComponent(entry.path)}` }, name) : el("span", { title: entry.reason || "" }, name);
      return el("tr", { class: entry.path ? "" : "unreachable" }, el("td", {}, link),
        el("td", {}, entry.directory || entry.size === undefined ? "" : formatBytes(entry.size)),
        el("td", {}, entry.modified ? formatTime(entry.modified) : ""));
    }))), answer.omitted ? el("p", {}, `${answer.omitted} more not listed.`) : null].filter(Boolean));
  };
  api(`api/files/${path}`).then((answer) => {
    if (answer.entries) { showListing(path, answer); return; }
    showPreview(answer, preview, path);
    const parent = path.split("/").slice(0, -1).join("/");
    return api(`api/files/${parent}`).then((listed) => showListing(parent, listed));
  }).catch((error) => setStatus(error.message, true));
}

function showPreview(answer, container, encodedPath) {
  container.append(el("h2", {}, answer.name || ""), el("p", {}, el("a", { href: `files/${encodedPath}`, download: "" }, `Download (${formatBytes(answer.size)})`),
    ` · modified ${formatTime(answer.modified)}`));
  const preview = answer.preview || {};
  if (preview.text !== undefined) container.append(el("pre", { class: "body" }, preview.text + (preview.truncated ? "\n…" : "")));
  else if (preview.json !== undefined) container.append(el("pre", { class: "body" }, preview.json));
  else if (preview.tables) {
    container.append(el("table", {}, el("thead", {}, el("tr", {}, el("th", {}, "Table"), el("th", {}, "Rows"))),
      el("tbody", {}, preview.tables.map((table) => el("tr", {}, el("td", {}, table.name), el("td", {}, table.rows ?? "…"))))));
    if (preview.error) container.append(el("p", { class: "error" }, preview.error));
  } else if (preview.image) container.append(el("p", {}, `${preview.image.format} image, ${preview.image.width} × ${preview.image.height} pixels`));
  else container.append(el("p", {}, "Binary file."));
}

document.addEventListener("DOMContentLoaded", frame);
