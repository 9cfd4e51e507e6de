// The importer inside its frame. It waits for the host page (one of the
// session's allowed origins) to hand it the client secret by postMessage,
// then walks the end user through file, sheet (a workbook of several),
// column matching, value fixes and submit, on the API's own routes. It
// talks only to that one origin. The page carries the session's language,
// theme and texts, so it looks and reads right before the secret comes.
import { sheet } from "./sheet.js";

const root = document.documentElement;
const allowed = JSON.parse(root.dataset.origins || "[]");
const sessionID = root.dataset.session;
const locale = root.dataset.locale || "en";
const look = JSON.parse(root.dataset.theme || "{}");
const texts = JSON.parse(root.dataset.texts || "{}");
const state = { parent: null, secret: null, session: null, job: null, step: "file", words: {}, steps: ["file", "match", "fix", "submit"],
  sheet: { chosen: false }, applied: false, mode: "inline" };
const $ = (id) => document.getElementById(id);
const plurals = new Intl.PluralRules(locale);
const numbers = new Intl.NumberFormat(locale);

// format fills a message's {name} placeholders, numbers written the
// language's way, and picks the form of its {name, plural, one {…} other
// {…}} parts by Intl.PluralRules ("=0 {…}" for an exact number; "#" is
// the number): the ICU MessageFormat subset the message files use.
function format(msg, vars) {
  let out = "";
  for (let i = 0; i < msg.length; i++) {
    if (msg[i] !== "{") { out += msg[i]; continue; }
    const end = closing(msg, i);
    if (end < 0) { out += msg.slice(i); break; }
    out += placeholder(msg.slice(i + 1, end), vars);
    i = end;
  }
  return out;
}

// closing is the index of the brace that closes the one at i, or -1.
function closing(msg, i) {
  for (let depth = 0; i < msg.length; i++) {
    if (msg[i] === "{") depth++;
    else if (msg[i] === "}" && --depth === 0) return i;
  }
  return -1;
}

function placeholder(body, vars) {
  const m = /^\s*(\w+)\s*(?:,\s*plural\s*,([\s\S]*))?$/.exec(body);
  if (!m) return "{" + body + "}";
  const v = vars[m[1]];
  if (m[2] === undefined) return v === undefined || v === null ? "" : typeof v === "number" ? numbers.format(v) : String(v);
  const n = Number(v) || 0;
  const forms = {};
  for (let rest = m[2]; ;) {
    const k = /^\s*(=\d+|zero|one|two|few|many|other)\s*\{/.exec(rest);
    if (!k) break;
    const open = k[0].length - 1;
    const end = closing(rest, open);
    if (end < 0) break;
    forms[k[1]] = rest.slice(open + 1, end);
    rest = rest.slice(end + 1);
  }
  const form = forms["=" + n] ?? forms[plurals.select(n)] ?? forms.other ?? "";
  return format(form.replaceAll("#", numbers.format(n)), vars);
}

// t is a message in the end user's language: the session's own text for
// it when the customer set one, else the message file's.
function t(key, vars = {}) {
  const s = texts[key] ?? state.words[key] ?? key;
  return format(s, vars);
}

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === false || v == null) continue;
    if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c) e.append(c);
  return e;
}

// post sends a message to the host, and only to the origin that gave the
// secret; before it did, to each allowed origin, which the browser
// delivers only to the host if the host is one of them.
function post(type, data = {}) {
  if (window.parent === window) return;
  const m = { type: "tabnorm:" + type, importSessionId: sessionID, ...data };
  for (const o of state.parent ? [state.parent] : allowed) window.parent.postMessage(m, o);
}

function status(text, bad = false) {
  const s = $("tn-status");
  s.textContent = text;
  s.classList.toggle("tn-bad", bad);
}

// failures are the errors the host hears by a code of the protocol, with
// the end user's sentence: the session's end (expired, or revoked, whose
// secret is then refused as unknown) and a broken connection. Any other
// keeps the API's code.
const failures = {
  import_session_expired: ["session_expired", "error.expired"],
  unauthenticated: ["session_revoked", "error.revoked"],
  network: ["network", "error.network"],
  quota_exceeded: ["quota_exceeded", "error.quota"],
  forbidden_import_session: ["forbidden_import_session", "error.forbidden"],
};

function fail(err) {
  const apiCode = err && err.code ? err.code : "error";
  const message = err && err.message ? err.message : String(err);
  const [code, key] = failures[apiCode] || [apiCode, null];
  status(key ? t(key) : t("error.generic", { message }), true);
  post("error", { code, message, ...(code !== apiCode ? { apiCode } : {}) });
}

async function api(method, path, body) {
  const headers = { Authorization: "Bearer " + state.secret };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let res;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: "omit", cache: "no-store" });
  } catch (err) {
    throw Object.assign(new Error("The request to " + location.origin + " failed: " + err.message), { code: "network" });
  }
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw Object.assign(new Error(data.detail || res.statusText), { code: data.code, status: res.status });
  return data;
}

function showSteps() {
  const ol = $("tn-steps");
  ol.replaceChildren(...state.steps.map((s) => el("li", { "aria-current": s === state.step ? "step" : false, text: t("step." + s) })));
}

function show(step, ...children) {
  state.step = step;
  showSteps();
  const main = $("tn-main");
  main.replaceChildren(...children.filter(Boolean));
  // A new step starts at the top, its heading and steps in view (in the
  // host page too, where the browser lets a frame scroll it); focus moves
  // to it without scrolling the heading away.
  window.scrollTo(0, 0);
  document.querySelector(".tn-head").scrollIntoView({ block: "nearest" });
  main.focus({ preventScroll: true });
}

const colors = ["background", "surface", "text", "muted", "border", "primary", "primary_text", "success", "warning", "error"];

// theme sets the session's look as CSS custom properties, through the CSS
// object model (no inline style: the policy forbids it): both palettes,
// the style sheet choosing one by data-mode and the system's setting.
function theme(th) {
  const s = root.style;
  for (const [name, pal] of [["light", th.light], ["dark", th.dark]]) {
    if (!pal) continue;
    for (const c of colors) if (pal[c]) s.setProperty("--tn-" + name + "-" + c.replace("_", "-"), pal[c]);
  }
  if (th.radius) s.setProperty("--tn-radius", th.radius);
  if (th.font) s.setProperty("--tn-font", th.font);
  if (th.font_size) s.setProperty("--tn-font-size", th.font_size);
  root.dataset.density = th.density || "comfortable";
  root.dataset.buttons = th.button_style || "solid";
  root.dataset.mode = th.mode || "light";
  if (th.logo_url) {
    const logo = $("tn-logo");
    logo.src = th.logo_url;
    logo.hidden = false;
  }
}

const sizes = (unit) => new Intl.NumberFormat(locale, { style: "unit", unit, unitDisplay: "short", maximumFractionDigits: 0 });

function megabytes(n) {
  return n >= 1 << 20 ? sizes("megabyte").format(Math.round(n / (1 << 20))) : sizes("kilobyte").format(Math.ceil(n / 1024));
}

// example is how to write a value of a field's type the end user's way
// (Intl), and hint says it in a sentence: nothing for a text field.
function example(field) {
  const f = fieldOf(field);
  switch (f && f.type) {
    case "date": return new Intl.DateTimeFormat(locale).format(new Date(2026, 11, 31));
    case "datetime": return new Intl.DateTimeFormat(locale, { dateStyle: "short", timeStyle: "short" }).format(new Date(2026, 11, 31, 14, 30));
    case "integer": return numbers.format(1234);
    case "number": return numbers.format(1234.5);
  }
  return "";
}

function hint(field) {
  const f = fieldOf(field);
  const type = f && f.type;
  if (type === "date") return t("hint.date", { example: example(field), iso: "2026-12-31" });
  if (["datetime", "integer", "number"].includes(type)) return t("hint." + type, { example: example(field) });
  if (type === "boolean") return t("hint.boolean");
  return "";
}

async function waitJob(id, until) {
  for (;;) {
    const j = await api("GET", "/v1/jobs/" + encodeURIComponent(id));
    if (until.includes(j.status) || ["failed", "canceled", "succeeded"].includes(j.status)) return j;
    await new Promise((r) => setTimeout(r, 400));
  }
}

// Step 1: the file, with its limits shown before the upload and its progress.
function fileStep() {
  const limit = state.session.max_upload_bytes;
  const input = el("input", { type: "file", id: "tn-file", accept: ".csv,.tsv,.txt,.jsonl,.ndjson,.xlsx", "aria-describedby": "tn-limits" });
  const bar = el("progress", { max: "100", value: "0", "aria-label": t("file.progress"), hidden: true });
  const drop = el("div", { class: "tn-drop" },
    el("p", { text: t("file.drop") }),
    el("label", { for: "tn-file", text: t("file.label") }), el("br"), input,
    el("p", { id: "tn-limits", class: "tn-muted", text: t("file.limits", { size: megabytes(limit) }) }));
  drop.addEventListener("dragover", (e) => { e.preventDefault(); drop.classList.add("tn-over"); });
  drop.addEventListener("dragleave", () => drop.classList.remove("tn-over"));
  drop.addEventListener("drop", (e) => {
    e.preventDefault();
    drop.classList.remove("tn-over");
    if (e.dataTransfer.files.length) upload(e.dataTransfer.files[0], bar);
  });
  const go = el("button", { type: "button", class: "tn-button", text: t("file.upload"), onclick: () => {
    if (!input.files.length) return status(t("file.none"), true);
    upload(input.files[0], bar);
  } });
  show("file", drop, bar, el("div", { class: "tn-actions" }, go));
  status("");
}

function upload(file, bar) {
  const limit = state.session.max_upload_bytes;
  if (limit && file.size > limit) return status(t("file.tooLarge", { name: file.name, size: megabytes(limit) }), true);
  const form = new FormData();
  form.append("file", file, file.name);
  state.sheet = { chosen: false };
  state.applied = false;
  const xhr = new XMLHttpRequest();
  xhr.open("POST", "/v1/jobs");
  xhr.setRequestHeader("Authorization", "Bearer " + state.secret);
  bar.hidden = false;
  xhr.upload.onprogress = (e) => {
    if (!e.lengthComputable) return;
    const p = Math.round((e.loaded / e.total) * 100);
    bar.value = p;
    status(t("file.uploading", { name: file.name, percent: p }));
  };
  xhr.onload = async () => {
    let data = {};
    try { data = JSON.parse(xhr.responseText); } catch { /* not JSON: reported below */ }
    if (xhr.status !== 202) return fail(Object.assign(new Error(data.detail || xhr.statusText), { code: data.code }));
    state.job = data;
    post("job_created", { jobId: data.id });
    status(t("file.reading"));
    try { await afterRun(await waitJob(data.id, ["awaiting_review"])); } catch (err) { fail(err); }
  };
  xhr.onerror = () => fail(Object.assign(new Error("The upload to " + location.origin + " failed."), { code: "network" }));
  xhr.send(form);
}

// afterRun moves on from a job that stopped: to its review, its fixes, or its failure.
async function afterRun(j) {
  state.job = j;
  if (j.status === "awaiting_review") {
    const review = await api("GET", "/v1/jobs/" + j.id + "/review");
    if (sheetsWithData(review).length > 1) {
      if (!state.steps.includes("sheet")) state.steps.splice(1, 0, "sheet");
      if (!state.sheet.chosen) return sheetStep(review);
    }
    if (review.header_unsure && !state.header && (review.first_rows || []).length) return headerStep(review);
    return matchStep(review);
  }
  if (j.status === "succeeded") return fixStep();
  fail(Object.assign(new Error(j.error ? j.error.message : j.status), { code: j.error ? j.error.code : j.status }));
}

// sheetsWithData are the sheets of the review's workbook a person may
// choose: those not known to be empty, and the one read.
function sheetsWithData(review) {
  return (review.sheets || []).filter((s) => s.selected || !(s.complete && s.rows === 0));
}

function sheetSize(s) {
  return t(s.complete ? "sheet.rows" : "sheet.rowsAtLeast", { rows: s.rows });
}

// Step 2 of a workbook with several sheets of data: which one to import.
// The one the engine read is chosen to begin with; another is read again
// by the API (PATCH …/review), whose review the next step shows.
function sheetStep(review) {
  const sheets = sheetsWithData(review);
  const current = sheets.find((s) => s.selected) || sheets[0];
  const choices = sheets.map((s, i) => {
    const id = "tn-sheet-" + i;
    const about = [sheetSize(s), (s.first_row || []).filter((c) => c !== "").join(", ")].filter(Boolean).join(" · ");
    return el("div", { class: "tn-sheet" },
      el("input", { type: "radio", name: "tn-sheet", id, value: s.name, checked: s === current, "aria-describedby": id + "-about" }),
      el("div", { class: "tn-sheet-text" },
        el("label", { for: id, text: s.name }),
        el("span", { id: id + "-about", class: "tn-muted tn-sheet-about", text: about })));
  });
  const go = el("button", { type: "button", class: "tn-button", text: t("sheet.continue"), onclick: async () => {
    const picked = document.querySelector("input[name=tn-sheet]:checked");
    const name = picked ? picked.value : current.name;
    state.sheet.chosen = true;
    if (name === current.name) return matchStep(review);
    go.disabled = true;
    status(t("sheet.reading", { sheet: name }));
    try {
      matchStep(await api("PATCH", "/v1/jobs/" + state.job.id + "/review", { sheet: name }));
    } catch (err) { go.disabled = false; fail(err); }
  } });
  show("sheet", el("p", { text: t("sheet.intro") }),
    el("fieldset", { class: "tn-sheets" }, el("legend", { text: t("sheet.legend") }), ...choices),
    el("div", { class: "tn-actions" }, go));
  const s = review.sample || {};
  const unmapped = !s.records && (review.blocking || []).some((b) => b.code === "no_columns_mapped");
  status(unmapped ? t("sheet.noColumns", { sheet: current.name })
    : t("sheet.summary", { sheet: current.name, records: s.records || 0, valid: s.rows_valid || 0, rejected: s.rows_rejected || 0 }));
}

// blockingWords says what keeps a review from its confirmation in the end
// user's language, else in the API's words.
function blockingWords(b) {
  const key = "blocking." + b.code;
  return key in state.words || key in texts ? t(key, { field: b.field || "" }) : b.message;
}

function fieldOf(name) {
  const sch = state.session.schema || (state.job && state.job.schema);
  return sch && sch.fields ? sch.fields.find((f) => f.name === name) : null;
}

function fieldNames() {
  const sch = state.session.schema || (state.job && state.job.schema);
  return sch && sch.fields ? sch.fields.map((f) => f.name) : [];
}

// checks say what a column's warning asks the person to check.
const checks = {
  fuzzy_mapping: () => t("match.check.fuzzy_mapping"),
  content_mapping: () => t("match.check.content_mapping"),
  synonym_mapping: () => t("match.check.synonym_mapping"),
  ambiguous_mapping: (col) => t("match.check.ambiguous_mapping", { field: (col.alternatives || [])[0] ? col.alternatives[0].field : "" }),
};

// columnNotes are what the review says of a column's match, in the
// person's words: why the engine matched it (how well its name and its
// examples fit, for a match it made) and what to check (its warnings);
// null when there is nothing to say.
function columnNotes(col) {
  const items = [];
  const ev = col.evidence;
  if (col.field && ev) {
    if (ev.header > 0) items.push(el("li", { text: t("match.why.header", { header: Math.round(ev.header * 100) }) }));
    if (ev.matched !== "any" && ev.matched !== "empty") items.push(el("li", { text: t("match.why.values", { values: Math.round(ev.values * 100) }) }));
  }
  for (const w of col.warnings || []) {
    if (checks[w.code]) items.push(el("li", { class: "tn-check", "data-code": w.code, text: checks[w.code](col) }));
  }
  return items.length ? items : null;
}

// The header row, when the engine was not sure which row holds the
// column names (or the end user asks): the file's first rows to choose
// from, or none. The API reads the sample again with it (PATCH …/review
// {"header_row":N}), and the match step shows that review.
function headerStep(review) {
  if (!state.steps.includes("header")) state.steps.splice(state.steps.indexOf("match"), 0, "header");
  state.header = true;
  const rows = review.first_rows || [];
  const current = review.header_row ?? 1;
  const choice = (n, text, about) => {
    const rid = "tn-header-" + n;
    return el("div", { class: "tn-sheet" },
      el("input", { type: "radio", name: "tn-header", id: rid, value: String(n), checked: n === current, "aria-describedby": about ? rid + "-about" : null }),
      el("div", { class: "tn-sheet-text" }, el("label", { for: rid, text }),
        about ? el("span", { id: rid + "-about", class: "tn-muted tn-sheet-about", text: about }) : null));
  };
  const choices = rows.map((cells, i) => choice(i + 1, t("header.rowN", { row: i + 1 }), cells.filter((c) => c !== "").join(" · ") || t("cells.emptyValue")));
  choices.push(choice(0, t("header.none"), null));
  const go = el("button", { type: "button", id: "tn-header-go", class: "tn-button", text: t("header.continue"), onclick: async () => {
    const picked = document.querySelector("input[name=tn-header]:checked");
    const n = picked ? Number(picked.value) : current;
    if (n === current) return matchStep(review);
    go.disabled = true;
    status(t("header.reading", { row: n }));
    try {
      matchStep(await api("PATCH", "/v1/jobs/" + state.job.id + "/review", { header_row: n }));
    } catch (err) { go.disabled = false; fail(err); }
  } });
  show("header", el("p", { text: t(review.header_unsure ? "header.unsure" : "header.intro") }),
    el("fieldset", { class: "tn-sheets" }, el("legend", { text: t("header.legend") }), ...choices),
    el("div", { class: "tn-actions" }, go));
  status("");
}

// Step 2: match columns, with the engine's alternatives and sample values,
// why it matched each column and what to check.
function matchStep(review) {
  const fields = fieldNames();
  const rows = review.columns.map((col, i) => {
    const suggested = new Set((col.alternatives || []).map((a) => a.field));
    const select = el("select", { id: "tn-col-" + i, "aria-label": t("match.field") + ": " + col.source_column });
    select.append(el("option", { value: "", text: t("match.ignore") }));
    for (const f of fields) {
      const o = el("option", { value: f, text: suggested.has(f) ? f + " (" + t("match.suggested") + ")" : f });
      if (col.field === f) o.selected = true;
      select.append(o);
    }
    select.addEventListener("change", async () => {
      try {
        const next = await api("PATCH", "/v1/jobs/" + state.job.id + "/mapping", { mapping: { [col.source_column]: select.value || null } });
        matchStep(next);
        const again = document.getElementById("tn-col-" + i);
        if (again) again.focus();
      } catch (err) { fail(err); }
    });
    const notes = columnNotes(col);
    if (notes) select.setAttribute("aria-describedby", "tn-col-" + i + "-notes");
    return el("tr", {},
      el("th", { scope: "row", "data-label": t("match.column"), text: col.source_column }),
      el("td", { class: "tn-samples", "data-label": t("match.samples"), text: (col.values || []).join(", ") }),
      el("td", { "data-label": t("match.field") }, select,
        notes && el("ul", { class: "tn-col-notes", id: "tn-col-" + i + "-notes" }, ...notes)));
  });
  const table = el("div", { class: "tn-table-wrap" }, el("table", {},
    el("thead", {}, el("tr", {}, el("th", { scope: "col", text: t("match.column") }), el("th", { scope: "col", text: t("match.samples") }), el("th", { scope: "col", text: t("match.field") }))),
    el("tbody", {}, ...rows)));
  const blocking = review.blocking && review.blocking.length
    ? el("div", { class: "tn-blocking" }, el("p", { text: t("match.blocking") }), el("ul", {}, ...review.blocking.map((b) => el("li", { text: blockingWords(b) }))))
    : null;
  const confirm = el("button", { type: "button", class: "tn-button", text: t("match.confirm"), disabled: !!blocking, onclick: async () => {
    confirm.disabled = true;
    try {
      await api("POST", "/v1/jobs/" + state.job.id + "/confirm");
      post("review_confirmed", { jobId: state.job.id });
      status(t("match.running"));
      await afterRun(await waitJob(state.job.id, []));
    } catch (err) { confirm.disabled = false; fail(err); }
  } });
  const several = sheetsWithData(review).length > 1;
  const other = several ? el("button", { type: "button", class: "tn-button tn-secondary", text: t("match.sheet"), onclick: () => sheetStep(review) }) : null;
  const header = (review.first_rows || []).length
    ? el("button", { type: "button", id: "tn-header-open", class: "tn-button tn-secondary", text: t("match.header"), onclick: () => headerStep(review) }) : null;
  show("match", el("p", { text: t("match.intro") }), table, blocking, el("div", { class: "tn-actions" }, confirm, other, header));
  const s = review.sample || {};
  const summary = t("match.summary", { records: s.records || 0, valid: s.rows_valid || 0, rejected: s.rows_rejected || 0 });
  const read = (review.sheets || []).find((x) => x.selected);
  status(several && read ? t("match.onSheet", { sheet: read.name }) + " " + summary : summary);
}

// fileNotes says what the run noticed about the file itself (lines it
// skipped, a currency it could not keep, a column to check), from the
// job's result.file_issues: a message file's sentence for the code, else
// the engine's own message. Nothing when there is nothing to say.
function fileNotes(j) {
  const issues = (j.result && j.result.file_issues) || [];
  if (!issues.length) return null;
  const said = new Set();
  const items = [];
  for (const is of issues) {
    const key = "note." + is.code;
    const text = key in state.words ? t(key, { column: is.column || "", field: is.field || "" }) : is.message;
    if (said.has(text)) continue;
    said.add(text);
    items.push(el("li", { text }));
  }
  return el("section", { class: "tn-notes", "aria-labelledby": "tn-notes-title" },
    el("h2", { id: "tn-notes-title", text: t("note.title") }), el("ul", {}, ...items));
}

function counts(j) {
  const r = j.result || {};
  return { valid: r.row_count || 0, rejected: r.rejected_count || 0 };
}

// Step 3: fix values, in the spreadsheet of all rows (sheet.js: any cell
// edited and checked at once, find-and-replace, undo) and by each field's
// unreadable values, replaced by value_map (every row with that value at
// once). "Apply fixes" reruns the job with both; the stored edits and
// replacements apply in the rerun.
async function fixStep(again = false) {
  const c = counts(state.job);
  if (!c.rejected && !again) return submitStep(t(state.applied ? "fix.appliedAll" : "fix.none", c));
  const groups = [];
  for (const f of fieldNames()) {
    const list = await api("GET", "/v1/jobs/" + state.job.id + "/invalid-values?field=" + encodeURIComponent(f) + "&limit=20");
    if (list.data.length) groups.push({ field: f, values: list.data, next: list.next_cursor, distinct: list.distinct_count || list.data.length });
  }
  const inputs = [];
  const sections = groups.map((g, gi) => {
    let shown = 0;
    const line = (v) => {
      const vi = shown++;
      const input = el("input", { type: "text", id: "tn-fix-" + gi + "-" + vi, "aria-label": t("fix.replace") + ": " + g.field + " " + v.value, placeholder: example(g.field) || null });
      inputs.push({ field: g.field, from: v.value, input });
      return el("tr", {},
        el("th", { scope: "row", "data-label": t("fix.value"), text: v.value === "" ? "∅" : v.value }),
        el("td", { "data-label": t("fix.count"), text: numbers.format(v.count) }),
        el("td", { "data-label": t("fix.replace") }, input));
    };
    const tbody = el("tbody", {}, ...g.values.map(line));
    // "and N more": the field's next values, a page at a time, the
    // focus on the first of them.
    const more = el("button", { type: "button", id: "tn-fix-more-" + gi, class: "tn-button tn-secondary", hidden: !g.next });
    const count = () => { more.textContent = t("fix.more", { count: Math.max(0, g.distinct - shown) }); };
    count();
    more.addEventListener("click", async () => {
      more.disabled = true;
      try {
        const list = await api("GET", "/v1/jobs/" + state.job.id + "/invalid-values?field=" + encodeURIComponent(g.field) + "&limit=100&cursor=" + encodeURIComponent(g.next));
        const from = shown;
        tbody.append(...list.data.map(line));
        g.next = list.next_cursor;
        more.hidden = !g.next;
        count();
        const first = $("tn-fix-" + gi + "-" + from);
        if (first) first.focus();
      } catch (err) { fail(err); } finally { more.disabled = false; }
    });
    const about = hint(g.field);
    return el("section", {}, el("h2", { text: t("fix.field", { field: titleOf(g.field) }) }), about ? el("p", { class: "tn-muted tn-hint", text: about }) : null,
      el("div", { class: "tn-table-wrap" }, el("table", {},
      el("thead", {}, el("tr", {}, el("th", { scope: "col", text: t("fix.value") }), el("th", { scope: "col", text: t("fix.count") }), el("th", { scope: "col", text: t("fix.replace") }))),
      tbody)), more);
  });
  const sch = state.session.schema || state.job.schema || {};
  const grid = sheet({ call: api, path: "/v1/jobs/" + state.job.id, fields: sch.fields || [], t, issueText: issueWords, id: "tn-sh", back: backToColumns });
  const apply = el("button", { type: "button", id: "tn-apply", class: "tn-button", text: t("fix.apply"), onclick: async () => {
    // A rerun inherits the job's options, but a value_map in the request
    // replaces the job's whole map: start from it, so that an earlier
    // round's replacements stay.
    const valueMap = structuredClone((state.job.options && state.job.options.value_map) || {});
    let added = 0;
    for (const x of inputs) {
      if (x.input.value.trim() === "") continue;
      (valueMap[x.field] ||= {})[x.from] = x.input.value.trim();
      added++;
    }
    if (!added && !grid.changes()) return submitStep(t("fix.summary", c));
    apply.disabled = true;
    try {
      const j = await api("POST", "/v1/jobs/" + state.job.id + "/rerun", added ? { options: { value_map: valueMap } } : {});
      post("job_created", { jobId: j.id, rerunOf: state.job.id });
      status(t("fix.running"));
      const done = await waitJob(j.id, []);
      state.applied = true;
      await afterRun(done);
    } catch (err) { apply.disabled = false; fail(err); }
  } });
  const skip = el("button", { type: "button", class: "tn-button tn-secondary", text: t("fix.skip"), onclick: () => submitStep(t("fix.summary", c)) });
  show("fix", el("p", { text: t(groups.length ? "fix.intro" : "fix.introCells") }), fileNotes(state.job), grid.node, ...sections, el("div", { class: "tn-actions" }, apply, skip));
  status(t(state.applied ? "fix.applied" : "fix.summary", c));
  grid.start();
}

// backToColumns reruns the job to its review, the mapping so far
// proposed and the edits kept (POST …/rerun {"review":true}), and goes
// back to the column matching.
async function backToColumns() {
  const j = await api("POST", "/v1/jobs/" + state.job.id + "/rerun", { review: true });
  post("job_created", { jobId: j.id, rerunOf: state.job.id });
  status(t("grid.backing"));
  state.header = true; // the header row was chosen, or was sure, the first time
  await afterRun(await waitJob(j.id, ["awaiting_review"]));
}

// titleOf is a field's title in the schema, else its name.
function titleOf(name) {
  const f = fieldOf(name);
  return (f && f.title) || name;
}

// issueWords says an issue in the end user's language: a message file's
// sentence for its code, else the engine's message (a rule's is the
// customer's own).
function issueWords(is) {
  const key = "issue." + is.code;
  if (is.code === "rule_violation" || !(key in state.words)) return is.message;
  return t(key, { value: is.value == null ? "" : is.value });
}

// Step 4: submit: the session ends and the host hears of its jobs.
function submitStep(said) {
  const c = counts(state.job);
  const policy = state.session.submit_policy || {};
  const refused = el("p", { id: "tn-refused", class: "tn-bad-text", role: "alert", hidden: true });
  const fixAgain = el("button", { type: "button", id: "tn-fix-again", class: "tn-button tn-secondary", text: t("submit.backToFix"), hidden: !c.rejected,
    onclick: () => fixStep(true) });
  const refuse = (key) => {
    refused.textContent = t(key, { rejected: c.rejected, valid: c.valid, min: policy.min_valid_rows || 0 });
    refused.hidden = false;
  };
  const send = el("button", { type: "button", class: "tn-button", text: t("submit.button"), onclick: async () => {
    send.disabled = true;
    try {
      const res = await api("POST", "/v1/import-sessions/current/submit");
      const sum = res.summary;
      status(t("submit.done", { valid: sum.rows_valid }));
      post("complete", { jobIds: sum.jobs.map((j) => j.id), jobs: sum.jobs, supersededJobIds: sum.superseded_job_ids, rowsValid: sum.rows_valid,
        rowsRejected: sum.rows_rejected, metadata: sum.metadata });
      $("tn-main").replaceChildren(el("p", { text: t("submit.done", { valid: sum.rows_valid }) }));
    } catch (err) {
      send.disabled = false;
      if (err.code === "rows_still_invalid") return refuse("submit.block");
      if (err.code === "too_few_valid_rows") return refuse("submit.tooFew");
      fail(err);
    }
  } });
  // Before submit, the end user hears how many rows stay out, and what
  // the session's submit_policy will refuse.
  const left = el("p", { id: "tn-left-out", text: t("submit.leftOut", { rejected: c.rejected }) });
  if (policy.invalid_rows === "block" && c.rejected) refuse("submit.block");
  else if (policy.min_valid_rows && c.valid < policy.min_valid_rows) refuse("submit.tooFew");
  show("submit", el("p", { text: t("submit.intro") }), el("p", { text: t("submit.summary", c) }), left, refused, fileNotes(state.job),
    el("div", { class: "tn-actions" }, send, fixAgain));
  status(said);
}

async function words() {
  const res = await fetch("/embed/v1/locales/" + encodeURIComponent(locale) + ".json");
  state.words = res.ok ? await res.json() : {};
  const title = look.title || t("title");
  document.title = title;
  $("tn-title").textContent = title;
  $("tn-close").setAttribute("aria-label", t("close"));
  $("tn-steps").parentElement.setAttribute("aria-label", t("steps"));
}

async function start() {
  try {
    state.session = await api("GET", "/v1/import-sessions/current");
    fileStep();
  } catch (err) { fail(err); }
}

// focusEnd focuses the first or the last control the end user can reach:
// in a modal, the host script asks when Tab leaves the importer at one
// end, so the focus comes round to the other.
function focusEnd(at) {
  const all = [...document.querySelectorAll("button, input, select, a[href], [tabindex='0']")]
    .filter((e) => !e.disabled && e.getClientRects().length > 0);
  const target = at === "last" ? all[all.length - 1] : all[0];
  if (target) target.focus();
}

window.addEventListener("message", (e) => {
  if (e.source !== window.parent || !allowed.includes(e.origin)) return; // only the host, only from an allowed origin
  const m = e.data;
  if (m && m.type === "tabnorm:focus" && e.origin === state.parent) return focusEnd(m.at);
  if (!m || m.type !== "tabnorm:init" || typeof m.clientSecret !== "string" || state.secret) return;
  state.parent = e.origin;
  state.secret = m.clientSecret;
  state.mode = m.mode === "modal" ? "modal" : "inline";
  start();
});

$("tn-close").addEventListener("click", () => post("closed"));

// In a modal, Escape closes the importer (the host removes the dialog and
// gives the focus back): unless a control used it, as the grid's cell
// editor does to cancel an edit.
document.addEventListener("keydown", (e) => {
  if (e.key === "Escape" && state.mode === "modal" && !e.defaultPrevented) post("closed");
});

// The host sizes the frame to the importer's content: its height is
// announced whenever it changes (a step, a table, a message).
let lastHeight = 0;
new ResizeObserver(() => {
  const h = Math.ceil(document.querySelector(".tn-app").getBoundingClientRect().height);
  if (h !== lastHeight) {
    lastHeight = h;
    post("resize", { height: h });
  }
}).observe(document.querySelector(".tn-app"));

theme(look);
await words();
showSteps();
status(t("waiting"));
post("ready");
