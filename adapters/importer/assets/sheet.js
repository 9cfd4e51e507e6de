// The spreadsheet of every record of a finished job (GET …/records), shared
// as one file by the importer (/embed/v1/sheet.js) and the dashboard
// (/assets/sheet.js; a test keeps the two copies equal). It is an ARIA grid
// of the whole list — aria-rowcount is the list's total — that draws only
// the rows in view: the scroll position is a position in the list, and the
// rows there are read by offset, a page of PAGE at a time, a few pages kept.
// A browser caps an element's height, so a list taller than TALL pixels is
// scrolled in proportion: each pixel then moves more than a pixel of rows.
//
// The keyboard: the arrows, Page Up/Down, Home/End (Ctrl for the first
// and last row) move a roving focus; Enter or F2 edits a cell and Enter
// saves it (POST …/edits; the answer's issues are the cell's now), Escape
// cancels; Enter on a column's heading sorts by it; Ctrl+Z and Ctrl+Y undo
// and redo. Find-and-replace and undo are offered only where the server
// has them (GET …/history answers).
//
// sheet(o): o.call(method, path, body) → the answer's JSON, or throws an
// Error with code and status; o.path the job's API path; o.fields the
// schema's fields; o.t(key, vars) a message; o.issueText(issue) an issue in
// words; o.id the prefix of the element ids; o.back() goes back to the
// column matching (a button when given); o.changed() hears of a change.
// It returns { node, start, changes }.

const PAGE = 100; // records a request
const KEEP = 8; // pages kept
const ROW = 40; // px a row, as sheet.css has it
const TALL = 8000000; // px the scrolled body may be at most

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

// formatter is the importer's message format (app.js) for a page with no
// format of its own, the dashboard: {name} placeholders, numbers the
// language's way, and {n, plural, one {…} other {…}} ("=0 {…}"; "#" is n).
export function formatter(locale, words) {
  const numbers = new Intl.NumberFormat(locale);
  const plurals = new Intl.PluralRules(locale);
  const close = (m, i) => {
    for (let d = 0; i < m.length; i++) {
      if (m[i] === "{") d++;
      else if (m[i] === "}" && --d === 0) return i;
    }
    return -1;
  };
  const fill = (m, vars) => {
    let out = "";
    for (let i = 0; i < m.length; i++) {
      if (m[i] !== "{") { out += m[i]; continue; }
      const end = close(m, i);
      if (end < 0) { out += m.slice(i); break; }
      out += part(m.slice(i + 1, end), vars);
      i = end;
    }
    return out;
  };
  const part = (body, vars) => {
    const m = /^\s*(\w+)\s*(?:,\s*plural\s*,([\s\S]*))?$/.exec(body);
    if (!m) return "{" + body + "}";
    const v = vars[m[1]];
    if (m[2] === undefined) return v == null ? "" : typeof v === "number" ? numbers.format(v) : String(v);
    const n = Number(v) || 0;
    const forms = {};
    for (let rest = m[2]; ;) {
      const k = /^\s*(=\d+|zero|one|two|few|many|other)\s*\{/.exec(rest);
      if (!k) break;
      const end = close(rest, k[0].length - 1);
      if (end < 0) break;
      forms[k[1]] = rest.slice(k[0].length, end);
      rest = rest.slice(end + 1);
    }
    const form = forms["=" + n] ?? forms[plurals.select(n)] ?? forms.other ?? "";
    return fill(form.replaceAll("#", numbers.format(n)), vars);
  };
  return (key, vars = {}) => fill(words[key] ?? key, vars);
}

export function sheet(o) {
  const { t, call, path } = o;
  const id = (s) => o.id + "-" + s;
  const fields = o.fields.filter((f) => f.name);
  const titleOf = (f) => f.title || f.name;
  const byName = Object.fromEntries(fields.map((f) => [f.name, f]));
  const filter = { status: "all", field: "", code: "", q: "", sort: "", order: "asc" };
  let total = 0;
  let gen = 0; // the list's generation: answers of an older one are dropped
  let pages = new Map(); // page → { rows } or { wait }
  let at = { r: 0, c: 1 }; // the cell Tab reaches: record r of the list (-1 the headings), column c (0 the row's)
  let editing = null;
  let changes = 0;
  let history = null; // GET …/history's answer, null where the server has none

  const said = el("p", { id: id("said"), class: "sh-said", role: "status", "aria-live": "polite" });
  const detail = el("p", { id: id("detail"), class: "sh-detail" });
  const count = el("span", { id: id("count"), class: "sh-count" });

  // The filter bar.
  const show = el("select", { id: id("status") },
    el("option", { value: "all", text: t("grid.all") }), el("option", { value: "rejected", text: t("grid.rejected") }),
    el("option", { value: "valid", text: t("grid.valid") }));
  const issue = el("select", { id: id("issue") }, el("option", { value: "", text: t("grid.anyIssue") }));
  const search = el("input", { type: "search", id: id("q"), autocomplete: "off", maxlength: "200" });
  const bar = el("div", { class: "sh-filters", role: "search", "aria-label": t("grid.filters") },
    el("div", { class: "sh-filter" }, el("label", { for: id("status"), text: t("grid.show") }), show),
    el("div", { class: "sh-filter" }, el("label", { for: id("issue"), text: t("grid.issue") }), issue),
    el("div", { class: "sh-filter" }, el("label", { for: id("q"), text: t("grid.search") }), search));
  show.addEventListener("change", () => { filter.status = show.value; reset(); });
  issue.addEventListener("change", () => {
    [filter.field, filter.code] = issue.value ? issue.value.split("|") : ["", ""];
    reset();
  });
  let typing = 0;
  search.addEventListener("input", () => {
    clearTimeout(typing);
    typing = setTimeout(() => { filter.q = search.value.trim(); reset(); }, 300);
  });
  search.addEventListener("keydown", (e) => {
    if (e.key !== "Enter") return;
    e.preventDefault();
    clearTimeout(typing);
    filter.q = search.value.trim();
    reset();
  });

  // The tools: undo, redo, find-and-replace, back to the columns.
  const undo = el("button", { type: "button", id: id("undo"), class: "sh-button", text: t("grid.undo"), hidden: true, disabled: true, "aria-keyshortcuts": "Control+Z" });
  const redo = el("button", { type: "button", id: id("redo"), class: "sh-button", text: t("grid.redo"), hidden: true, disabled: true, "aria-keyshortcuts": "Control+Y" });
  const findOpen = el("button", { type: "button", id: id("find"), class: "sh-button", text: t("grid.replace"), hidden: true, "aria-expanded": "false", "aria-controls": id("replace") });
  const back = o.back ? el("button", { type: "button", id: id("back"), class: "sh-button", text: t("grid.back") }) : null;
  undo.addEventListener("click", () => step("undo"));
  redo.addEventListener("click", () => step("redo"));
  if (back) back.addEventListener("click", async () => {
    back.disabled = true;
    tell(t("grid.backing"));
    try { await o.back(); } catch (err) { back.disabled = false; tell(err.message, true); }
  });
  const tools = el("div", { class: "sh-tools" }, undo, redo, findOpen, back);

  // Find-and-replace over one column, its matches counted first.
  const rField = el("select", { id: id("rfield") }, ...fields.filter((f) => !f.compute).map((f) => el("option", { value: f.name, text: titleOf(f) })));
  const rFind = el("input", { type: "text", id: id("rfind"), autocomplete: "off" });
  const rWith = el("input", { type: "text", id: id("rwith"), autocomplete: "off" });
  const rMatch = el("select", { id: id("rmatch") }, ...[["exact", t("grid.match.exact")], ["contains", t("grid.match.contains")], ["regex", t("grid.match.regex")]].map(([m, text]) => el("option", { value: m, text })));
  const rOnly = el("input", { type: "checkbox", id: id("ronly") });
  const rCount = el("button", { type: "button", id: id("rcount"), class: "sh-button", text: t("grid.preview") });
  const rApply = el("button", { type: "button", id: id("rapply"), class: "sh-button sh-primary", text: t("grid.apply") });
  const rSaid = el("p", { id: id("rsaid"), class: "sh-said", role: "status", "aria-live": "polite" });
  const replace = el("section", { id: id("replace"), class: "sh-replace", hidden: true, "aria-label": t("grid.replace") },
    el("div", { class: "sh-filter" }, el("label", { for: id("rfield"), text: t("grid.column") }), rField),
    el("div", { class: "sh-filter" }, el("label", { for: id("rfind"), text: t("grid.find") }), rFind),
    el("div", { class: "sh-filter" }, el("label", { for: id("rwith"), text: t("grid.with") }), rWith),
    el("div", { class: "sh-filter" }, el("label", { for: id("rmatch"), text: t("grid.matchBy") }), rMatch),
    el("div", { class: "sh-check" }, rOnly, el("label", { for: id("ronly"), text: t("grid.onlyRejected") })),
    el("div", { class: "sh-tools" }, rCount, rApply), rSaid);
  findOpen.addEventListener("click", () => {
    replace.hidden = !replace.hidden;
    findOpen.setAttribute("aria-expanded", String(!replace.hidden));
    if (!replace.hidden) rFind.focus();
  });
  const replacement = (preview) => ({ field: rField.value, find: rFind.value, replace: rWith.value, match: rMatch.value,
    status: rOnly.checked ? "rejected" : "all", preview });
  rCount.addEventListener("click", async () => {
    try {
      const ans = await call("POST", path + "/replacements", replacement(true));
      rSaid.classList.remove("sh-bad");
      rSaid.textContent = t("grid.previewed", { matched: ans.matched });
    } catch (err) { rSaid.classList.add("sh-bad"); rSaid.textContent = err.message; }
  });
  rApply.addEventListener("click", async () => {
    rApply.disabled = true;
    try {
      const ans = await call("POST", path + "/replacements", replacement(false));
      rSaid.classList.remove("sh-bad");
      rSaid.textContent = t("grid.replaced", { matched: ans.matched });
      changed();
      await reload();
    } catch (err) { rSaid.classList.add("sh-bad"); rSaid.textContent = err.message; } finally { rApply.disabled = false; }
  });

  // The grid: the headings, then a body as tall as the list, in which the
  // rows in view are drawn where the scroll position shows them.
  const cols = [null, ...fields];
  const heads = cols.map((f, c) => {
    const h = el("div", { role: "columnheader", id: id("h-" + c), class: c ? "sh-cell sh-head" : "sh-cell sh-head sh-rowhead", tabindex: "-1", "aria-colindex": String(c + 1) });
    if (!f) {
      h.textContent = t("grid.row");
      return h;
    }
    h.append(el("span", { class: "sh-title", text: titleOf(f) }));
    if (f.constraints && f.constraints.required) {
      h.append(el("span", { class: "sh-req", "aria-hidden": "true", text: "*" }), el("span", { class: "sh-hide", text: " " + t("grid.required") }));
    }
    if (f.description) {
      h.title = f.description;
      h.append(el("span", { class: "sh-hide", text: ". " + f.description }));
    }
    h.append(el("span", { class: "sh-arrow", "aria-hidden": "true" }));
    h.addEventListener("click", () => { place(-1, c); sortBy(c); });
    return h;
  });
  const headRow = el("div", { role: "row", class: "sh-row", "aria-rowindex": "1" }, ...heads);
  const rowsBox = el("div", { role: "rowgroup", class: "sh-rows" });
  const body = el("div", { class: "sh-body" }, rowsBox);
  const grid = el("div", { role: "grid", id: id("grid"), class: "sh-grid", "aria-labelledby": id("h"), "aria-describedby": id("help"),
    "aria-rowcount": "1", "aria-colcount": String(cols.length) }, el("div", { role: "rowgroup", class: "sh-headrow" }, headRow), body);
  const scroller = el("div", { class: "sh-scroll" }, grid);
  scroller.style.setProperty("--sh-cols", String(fields.length));

  const bodyView = () => Math.max(ROW, scroller.clientHeight - headRow.offsetHeight);
  const height = () => Math.min(total * ROW, TALL);
  // scale is how many pixels of the list one pixel of scrolling moves.
  const scale = () => {
    const room = height() - bodyView();
    return room > 0 ? Math.max(1, (total * ROW - bodyView()) / room) : 1;
  };
  const inView = () => Math.max(1, Math.floor(bodyView() / ROW));

  const cellId = (r, c) => (r < 0 ? id("h-" + c) : id("c-" + r + "-" + c));
  const recordAt = (r) => {
    const p = pages.get(Math.floor(r / PAGE));
    return p && p.rows ? p.rows[r % PAGE] : undefined;
  };
  const issuesOf = (rec, f) => rec.issues.filter((is) => (f ? is.field === f : !is.field || !byName[is.field]));
  const worst = (list) => (list.some((is) => is.severity === "error") ? "error" : list.length ? "warning" : "");
  const words = (list) => list.map(o.issueText).join(" ");

  // draw lays the rows in view out again; the focus stays on its cell.
  function draw() {
    const had = grid.contains(document.activeElement) && !editing;
    const pos = scroller.scrollTop * scale();
    const first = Math.max(0, Math.min(Math.floor(pos / ROW), total - 1));
    const last = Math.min(total - 1, first + inView() + 1);
    rowsBox.style.transform = "translateY(" + (scroller.scrollTop - (pos - first * ROW)) + "px)";
    const rows = [];
    for (let r = first; r <= last && total; r++) rows.push(rowOf(r));
    rowsBox.replaceChildren(...rows);
    if (!total) rowsBox.replaceChildren(el("div", { role: "row", class: "sh-row" }, el("div", { role: "gridcell", class: "sh-cell sh-none", text: t("grid.empty") })));
    need(first, last);
    // The Tab stop (and the focus) stays among the rows drawn: scrolled
    // away from, its row gives them to the nearest row in view.
    if (at.r >= 0 && at.r < first) at.r = first;
    if (at.r > last) at.r = Math.max(0, last);
    const cell = document.getElementById(cellId(at.r, at.c)) || heads[at.c];
    grid.querySelectorAll("[tabindex='0']").forEach((e) => e.setAttribute("tabindex", "-1"));
    cell.setAttribute("tabindex", "0");
    if (had) { describe(); cell.focus({ preventScroll: true }); }
  }

  function rowOf(r) {
    const rec = recordAt(r);
    const row = el("div", { role: "row", class: "sh-row", "aria-rowindex": String(r + 2) });
    if (!rec) {
      row.append(el("div", { role: "rowheader", id: cellId(r, 0), class: "sh-cell sh-rowhead", tabindex: "-1", "aria-colindex": "1", text: "…" }),
        ...fields.map((f, i) => el("div", { role: "gridcell", id: cellId(r, i + 1), class: "sh-cell sh-loading", tabindex: "-1", "aria-colindex": String(i + 2), "aria-busy": "true" })));
      return row;
    }
    if (!rec.valid) row.classList.add("sh-rejected");
    const rowIssues = issuesOf(rec, null);
    row.append(el("div", { role: "rowheader", id: cellId(r, 0), class: "sh-cell sh-rowhead" + (rowIssues.length ? " sh-" + worst(rowIssues) : ""), tabindex: "-1", "aria-colindex": "1",
      title: rowIssues.length ? words(rowIssues) : null },
      el("span", { class: rec.valid ? "sh-mark sh-ok" : "sh-mark sh-no", "aria-hidden": "true", text: rec.valid ? "✓" : "!" }),
      el("span", { text: String(rec.row) }), el("span", { class: "sh-hide", text: " " + t(rec.valid ? "grid.rowValid" : "grid.rowRejected") })));
    fields.forEach((f, i) => {
      const list = issuesOf(rec, f.name);
      const sev = worst(list);
      const v = rec.cells && f.name in rec.cells ? rec.cells[f.name] : rec.values ? rec.values[f.name] : null;
      const edited = rec.edited && rec.edited.includes(f.name);
      const text = v == null ? "" : typeof v === "object" ? JSON.stringify(v) : String(v);
      row.append(el("div", { role: "gridcell", id: cellId(r, i + 1), tabindex: "-1", "aria-colindex": String(i + 2),
        class: "sh-cell" + (sev ? " sh-" + sev : "") + (edited ? " sh-edited" : ""), "aria-invalid": sev === "error" ? "true" : null,
        "aria-readonly": f.compute ? "true" : null, title: list.length ? words(list) : null },
        el("span", { class: "sh-text", text }),
        edited ? el("span", { class: "sh-hide", text: " (" + t("cells.edited") + ")" }) : null));
    });
    return row;
  }

  // need reads the pages the rows first..last are on (and the next), and
  // forgets the pages furthest from them.
  function need(first, last) {
    const from = Math.floor(first / PAGE);
    const to = Math.min(Math.floor(Math.min(total - 1, last + PAGE / 2) / PAGE), Math.floor(Math.max(0, total - 1) / PAGE));
    for (let p = from; p <= to; p++) if (!pages.has(p)) load(p);
    if (pages.size > KEEP) {
      const far = [...pages.keys()].sort((a, b) => Math.abs(b - from) - Math.abs(a - from));
      for (const p of far.slice(0, pages.size - KEEP)) if (pages.get(p).rows) pages.delete(p);
    }
  }

  function query(p) {
    const q = new URLSearchParams({ limit: String(PAGE), offset: String(p * PAGE) });
    if (filter.status !== "all") q.set("status", filter.status);
    if (filter.field) q.set("field", filter.field);
    if (filter.code) q.set("code", filter.code);
    if (filter.q) q.set("q", filter.q);
    if (filter.sort) { q.set("sort", filter.sort); q.set("order", filter.order); }
    return path + "/records?" + q;
  }

  function load(p) {
    const g = gen;
    const wait = call("GET", query(p)).then((ans) => {
      if (g !== gen) return ans;
      pages.set(p, { rows: ans.data });
      setTotal(ans.total);
      draw();
      return ans;
    }, (err) => {
      if (g === gen) { pages.delete(p); tell(t("cells.loadFailed", { message: err.message }), true); }
      throw err;
    });
    pages.set(p, { wait });
    return wait;
  }

  function setTotal(n) {
    total = n;
    grid.setAttribute("aria-rowcount", String(total + 1));
    body.style.height = height() + "px";
    scroller.style.height = Math.max(1, Math.min(total, 12)) * ROW + headRow.offsetHeight + 2 + "px"; // a short list, a short box
    count.textContent = t("grid.count", { total });
  }

  // reset reads the list again from its start (a new filter or order).
  async function reset() {
    gen++;
    pages = new Map();
    scroller.scrollTop = 0;
    if (at.r > 0) at.r = 0;
    rowsBox.replaceChildren();
    detail.textContent = "";
    count.textContent = t("cells.loading");
    try {
      await load(0);
      draw();
    } catch { /* told */ }
  }

  // reload reads the pages in view again at the same position (an undo,
  // a replacement): the list may have changed.
  async function reload() {
    gen++;
    pages = new Map();
    const p = Math.floor(Math.max(0, at.r) / PAGE);
    try {
      await load(p);
      draw();
    } catch { /* told */ }
    await refreshHistory();
  }

  function sortBy(c) {
    const f = cols[c];
    if (!f) return;
    if (filter.sort !== f.name) { filter.sort = f.name; filter.order = "asc"; }
    else if (filter.order === "asc") filter.order = "desc";
    else filter.sort = "";
    heads.forEach((h, i) => {
      const on = cols[i] && filter.sort === cols[i].name;
      if (i) h.setAttribute("aria-sort", on ? (filter.order === "asc" ? "ascending" : "descending") : "none");
      const arrow = h.querySelector(".sh-arrow");
      if (arrow) arrow.textContent = on ? (filter.order === "asc" ? " ▲" : " ▼") : "";
    });
    reset();
  }

  // show moves the scroll position so that record r is in view.
  function reveal(r) {
    const top = scroller.scrollTop * scale();
    const view = inView();
    let pos = top;
    if (r * ROW < top) pos = r * ROW;
    else if ((r + 1) * ROW > top + view * ROW) pos = (r + 1) * ROW - view * ROW;
    if (pos !== top) scroller.scrollTop = Math.round(pos / scale());
  }

  function describe() {
    if (at.r < 0) {
      const f = cols[at.c];
      detail.textContent = f ? (f.description || "") : "";
      return;
    }
    const rec = recordAt(at.r);
    if (!rec) { detail.textContent = t("cells.loading"); return; }
    const f = cols[at.c];
    const list = f ? issuesOf(rec, f.name) : issuesOf(rec, null);
    const where = t("cells.rowN", { row: rec.row }) + (f ? " · " + titleOf(f) : "");
    detail.textContent = where + ": " + (list.length ? words(list) : f ? t("cells.cellOk") : t(rec.valid ? "grid.rowValid" : "grid.rowRejected"));
    detail.classList.toggle("sh-bad", worst(list) === "error");
  }

  function place(r, c) {
    at = { r: Math.max(-1, Math.min(total - 1, r)), c: Math.max(0, Math.min(cols.length - 1, c)) };
    if (at.r >= 0) reveal(at.r);
    draw();
    const cell = document.getElementById(cellId(at.r, at.c)) || heads[at.c];
    grid.querySelectorAll("[tabindex='0']").forEach((e) => e.setAttribute("tabindex", "-1"));
    cell.setAttribute("tabindex", "0");
    describe();
    cell.focus({ preventScroll: true });
    // In view sideways too, clear of the sticky row headings.
    const box = scroller.getBoundingClientRect();
    const spot = cell.getBoundingClientRect();
    const left = box.left + (at.c > 0 ? heads[0].offsetWidth : 0);
    if (spot.left < left) scroller.scrollLeft -= left - spot.left;
    else if (spot.right > box.right - 2) scroller.scrollLeft += spot.right - box.right + 2;
  }

  grid.addEventListener("keydown", (e) => {
    if (editing) return; // the text box has its keys
    const ctrl = e.ctrlKey || e.metaKey;
    const k = e.key;
    if (ctrl && (k === "z" || k === "Z") && !e.shiftKey) { e.preventDefault(); step("undo"); return; }
    if (ctrl && (k === "y" || k === "Y" || ((k === "z" || k === "Z") && e.shiftKey))) { e.preventDefault(); step("redo"); return; }
    const page = inView();
    const moves = {
      ArrowUp: [at.r - 1, at.c], ArrowDown: [at.r + 1, at.c], ArrowLeft: [at.r, at.c - 1], ArrowRight: [at.r, at.c + 1],
      PageUp: [Math.max(0, at.r - page), at.c], PageDown: [at.r + page, at.c],
      Home: ctrl ? [0, 0] : [at.r, 0], End: ctrl ? [total - 1, cols.length - 1] : [at.r, cols.length - 1],
    };
    if (moves[k]) {
      e.preventDefault();
      place(...moves[k]);
    } else if ((k === "Enter" || k === " ") && at.r < 0) {
      e.preventDefault();
      sortBy(at.c);
    } else if ((k === "Enter" || k === "F2") && at.r >= 0 && at.c > 0) {
      e.preventDefault();
      edit();
    }
  });
  grid.addEventListener("click", (e) => {
    const cell = e.target.closest("[role=gridcell], [role=rowheader]");
    if (!cell || editing || !cell.id) return;
    const [r, c] = cell.id.slice(id("c-").length).split("-").map(Number);
    place(r, c);
  });
  grid.addEventListener("dblclick", (e) => {
    if (e.target.closest("[role=gridcell]") && !editing) edit();
  });
  // Whatever brought the focus to a cell (a click, a screen reader's
  // cursor), it is the cell the keys move from and Tab comes back to.
  grid.addEventListener("focusin", (e) => {
    const cell = e.target.closest("[role=gridcell], [role=rowheader], [role=columnheader]");
    if (cell && cell.id && !editing) {
      const head = cell.id.startsWith(id("h-"));
      const [r, c] = head ? [-1, Number(cell.id.slice(id("h-").length))] : cell.id.slice(id("c-").length).split("-").map(Number);
      if (r !== at.r || c !== at.c) {
        grid.querySelectorAll("[tabindex='0']").forEach((x) => x.setAttribute("tabindex", "-1"));
        cell.setAttribute("tabindex", "0");
        at = { r, c };
      }
    }
    describe();
  });
  scroller.addEventListener("scroll", () => {
    if (editing) return;
    requestAnimationFrame(draw);
  });

  // edit turns the cell at the focus into a text box.
  function edit() {
    const rec = recordAt(at.r);
    const f = cols[at.c];
    if (!rec || !f) return;
    if (f.compute) { tell(t("grid.readonly", { field: titleOf(f) })); return; }
    const cell = document.getElementById(cellId(at.r, at.c));
    const v = rec.cells && rec.cells[f.name] != null ? String(rec.cells[f.name]) : "";
    const input = el("input", { type: "text", id: id("editor"), class: "sh-editor", autocomplete: "off", "aria-describedby": id("detail"),
      "aria-label": t("cells.editLabel", { field: titleOf(f), row: rec.row }) });
    input.value = v;
    const here = { ...at };
    editing = here;
    cell.replaceChildren(input);
    input.focus();
    input.select();
    let saving = false;
    const done = () => {
      editing = null;
      at = here;
      draw();
      place(here.r, here.c);
    };
    input.addEventListener("keydown", (e) => {
      if (e.key === "Escape") {
        e.preventDefault();
        e.stopPropagation();
        tell(t("cells.canceled", { row: rec.row, field: titleOf(f) }));
        done();
      } else if (e.key === "Enter" && !saving) {
        e.preventDefault();
        e.stopPropagation();
        saving = true;
        save(rec, f, input.value === "" ? null : input.value).finally(done);
      }
    });
    input.addEventListener("blur", () => {
      if (!saving && editing === here) { editing = null; draw(); }
    });
  }

  async function save(rec, f, value) {
    tell(t("cells.saving", { row: rec.row, field: titleOf(f) }));
    try {
      const ans = await call("POST", path + "/edits", { edits: [{ row: rec.row, source_file: rec.source_file, field: f.name, value }] });
      const d = ans.data[0];
      rec.cells = { ...rec.cells, [f.name]: d.value };
      if (!rec.edited.includes(f.name)) rec.edited.push(f.name);
      rec.issues = d.row_issues;
      rec.valid = d.row_valid;
      const left = rec.issues.filter((is) => is.severity === "error");
      tell(t(d.row_valid ? "cells.savedValid" : "cells.savedStill", { row: rec.row, field: titleOf(f), problems: words(left) }));
      changed();
      refreshHistory();
    } catch (err) {
      tell(t("cells.notSaved", { row: rec.row, field: titleOf(f), message: err.message }), true);
    }
  }

  function changed() {
    changes++;
    if (o.changed) o.changed();
  }

  function tell(text, bad = false) {
    said.textContent = text;
    said.classList.toggle("sh-bad", bad);
  }

  // step undoes or redoes on the server, which knows the history: the one
  // read here may be older than a key pressed at once after a change.
  async function step(which) {
    if (!history) return;
    const back = which === "undo";
    try {
      const s = await call("POST", path + "/" + which);
      tell(t(back ? "grid.undone" : "grid.redone", { summary: s.summary || "" }));
      changed();
      await reload();
    } catch (err) {
      tell(err.code === "nothing_to_undo" ? t("grid.nothingToUndo") : err.code === "nothing_to_redo" ? t("grid.nothingToRedo") : err.message, !/^nothing_to/.test(err.code || ""));
      await refreshHistory();
    }
  }

  // refreshHistory reads what undo and redo would do; a server without the
  // route (404) offers neither, nor find-and-replace.
  async function refreshHistory() {
    try {
      history = await call("GET", path + "/history");
    } catch (err) {
      if (err.status === 404) history = null;
      else return;
    }
    for (const b of [undo, redo, findOpen]) b.hidden = !history;
    undo.disabled = !history || !history.can_undo;
    redo.disabled = !history || !history.can_redo;
  }

  // issues fills the problem filter: each field's codes among its
  // refused values (GET …/invalid-values, the first page).
  async function issues() {
    for (const f of fields) {
      if (f.compute) continue;
      try {
        const list = await call("GET", path + "/invalid-values?field=" + encodeURIComponent(f.name) + "&limit=100");
        const codes = [...new Set(list.data.map((v) => v.code).filter(Boolean))];
        for (const c of codes) issue.append(el("option", { value: f.name + "|" + c, text: t("grid.issueOption", { field: titleOf(f), code: c.replaceAll("_", " ") }) }));
      } catch { /* a job without rejected rows has none */ }
    }
  }

  const node = el("section", { class: "sh", id: id("sheet"), "aria-labelledby": id("h") },
    el("div", { class: "sh-top" }, el("h2", { id: id("h"), text: t("grid.title") }), count),
    el("p", { id: id("help"), class: "sh-help", text: t("grid.help") }),
    bar, tools, replace, scroller, detail, said);

  async function start() {
    await Promise.all([reset(), refreshHistory(), issues()]);
  }

  return { node, start, changes: () => changes };
}
