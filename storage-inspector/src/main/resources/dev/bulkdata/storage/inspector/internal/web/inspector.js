// The inspector's page: reads the JSON API of the program that serves it, on the same origin
// (the access token travels in the cookie the first load set). Every value from the program is
// written with textContent, never as HTML.
'use strict';

const WINDOW = 600;                 // frames kept in the charts
const state = {
  tables: [], byName: new Map(), selected: null, versions: new Map(), chunk: null,
  history: { frames: [], series: new Map() }, lastFrame: -1, charts: null, sqlFilled: false,
};

const $ = (id) => document.getElementById(id);

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

async function api(path, options) {
  const response = await fetch(path, Object.assign({ credentials: 'same-origin', cache: 'no-store' }, options || {}));
  let body;
  try { body = await response.json(); } catch (e) { body = { error: response.status + ' ' + response.statusText }; }
  if (response.status === 401) {
    setStatus('This page needs its access token: open the address the program printed (it ends with ?token=...).', true);
    throw new Error('unauthorized');
  }
  if (!response.ok) {
    const err = new Error(body.error || response.statusText);
    err.status = response.status;
    throw err;
  }
  return body;
}

function setStatus(text, error) {
  const s = $('status');
  s.textContent = text;
  s.classList.toggle('error', !!error);
}

function fmt(n) {
  return n === null || n === undefined ? '–' : Number(n).toLocaleString('en-US');
}

// ---- tables -------------------------------------------------------------------------------

async function refreshTables() {
  const t = await api('api/tables');
  state.tables = t.tables;
  state.byName = new Map(t.tables.map((x) => [x.name, x]));
  $('frame').textContent = 'frame ' + fmt(t.frame) + ' · poll budget ' + t.budgetMillis + ' ms';
  setStatus('connected');
  const body = $('tables').tBodies[0];
  body.replaceChildren();
  for (const table of t.tables) {
    const row = el('tr');
    row.dataset.table = table.name;
    if (table.name === state.selected) row.classList.add('selected');
    const perRecord = table.live > 0 ? (table.bytes / table.live).toFixed(1) : '–';
    const cells = [table.name + (table.closed ? ' (closed)' : ''), table.kind, fmt(table.live),
      table.holes === undefined ? '–' : fmt(table.holes), table.retired === undefined ? '–' : fmt(table.retired),
      fmt(table.blocks), fmt(table.bytes), perRecord, table.schema.layout,
      table.tag === undefined || table.tag === null ? '–' : table.tag];
    for (const c of cells) row.appendChild(el('td', c));
    row.addEventListener('click', () => select(table.name));
    body.appendChild(row);
  }
  const sql = t.sql;
  if (sql.available) {
    $('sql-note').textContent = 'Queries only, over the live BulkTables and PackedTables as views of their names'
      + ' (with a handle column); at most ' + fmt(sql.maxRows) + ' rows and ' + fmt(sql.timeLimitMillis)
      + ' ms per query. No file, extension or setting can be reached.';
    $('sql-run').disabled = false;
  } else {
    $('sql-note').textContent = 'The SQL console is off: ' + sql.reason;
    $('sql-run').disabled = true;
  }
  if (!state.sqlFilled) {
    state.sqlFilled = true;
    const first = t.tables.find((x) => x.kind !== 'ComponentTable');
    if (first) $('sql-text').value = 'SELECT count(*) AS live FROM "' + first.name + '"';
  }
  if (state.selected === null && t.tables.length > 0) select(t.tables[0].name);
  else if (state.selected !== null) renderDetail();
}

function select(name) {
  if (state.selected !== name) {
    state.selected = name;
    state.chunk = null;
    $('records').replaceChildren();
    $('records-title').textContent = '';
    $('record').replaceChildren();
  }
  for (const row of $('tables').tBodies[0].rows) row.classList.toggle('selected', row.dataset.table === name);
  renderDetail();
  refreshChunks().catch(report);
}

function renderDetail() {
  const table = state.byName.get(state.selected);
  if (!table) return;
  $('detail').hidden = false;
  $('detail-title').textContent = table.name + ' · ' + table.kind
    + (table.entities ? ' of entities in ' + table.entities : '');
  const schema = $('schema');
  schema.replaceChildren();
  const head = el('tr');
  for (const h of ['field', 'type', 'bytes', 'offset', 'stride', 'refers to']) head.appendChild(el('th', h));
  schema.appendChild(head);
  for (const f of table.schema.fields) {
    const row = el('tr');
    for (const c of [f.name, f.type, f.bytes, f.offset, f.stride, f.target || '']) row.appendChild(el('td', c));
    schema.appendChild(row);
  }
  const s = table.schema;
  $('schema-summary').textContent = s.layout + ': ' + s.recordBytes + '-byte records in ' + s.slotBytes
    + '-byte slots, ' + fmt(s.slotsPerBlock) + ' per ' + fmt(s.blockBytes) + '-byte block';
  const hl = table.handleLayout;
  $('handle-layout').textContent = hl
    ? 'tag ' + hl.tagBits + ' bits' + (table.tag === null ? ' (not known until a record lives)' : ' = ' + table.tag)
      + ', generation ' + hl.generationBits + ' bits (up to ' + fmt(hl.maxGeneration) + '), index '
      + hl.slotBits + ' bits (up to ' + fmt(hl.maxSlot) + ')'
    : 'keyed by the handles of ' + table.entities;
}

// ---- chunks and records -------------------------------------------------------------------

async function refreshChunks() {
  const name = state.selected;
  if (name === null) return;
  const since = state.versions.get(name);
  const c = await api('api/chunks?table=' + encodeURIComponent(name) + (since === undefined ? '' : '&since=' + since));
  if (name !== state.selected) return;
  if (c.version !== null) state.versions.set(name, c.version);
  const map = $('chunk-map');
  map.replaceChildren();
  let changed = 0;
  c.chunks.forEach(([live, ch], i) => {
    const d = el('div', null, 'chunk');
    const fill = live / c.slotsPerChunk;
    d.style.background = 'rgba(26, 95, 208, ' + (0.08 + 0.92 * fill).toFixed(3) + ')';
    if (ch === 1) { d.classList.add('changed'); changed++; }
    if (i === state.chunk) d.classList.add('selected');
    d.title = 'chunk ' + i + ': ' + live + ' of ' + c.slotsPerChunk + ' slots live' + (ch === 1 ? ', changed' : '');
    d.dataset.chunk = i;
    d.addEventListener('click', () => loadRecords(i, 0).catch(report));
    map.appendChild(d);
  });
  $('chunk-summary').textContent = fmt(c.count) + ' chunks'
    + (c.chunks.length < c.count ? ' (the first ' + fmt(c.chunks.length) + ' shown)' : '')
    + (c.version === null ? '' : ', ' + fmt(changed) + ' changed since the previous look');
  map.dataset.changed = changed;
  if (state.chunk === null && c.count > 0) loadRecords(0, 0).catch(report);
}

function handleLink(v) {
  const a = el('a', v.label, 'handle');
  a.href = '#';
  if (v.live === false) a.classList.add('stale');
  a.title = v.live === false ? 'not a live record of ' + v.target : 'record of ' + v.target;
  a.addEventListener('click', (e) => { e.preventDefault(); showRecord(v.target, v.handle).catch(report); });
  return a;
}

function valueCell(v) {
  const td = el('td');
  if (v !== null && typeof v === 'object') {
    if (v.handle === '0') td.textContent = 'null';
    else td.appendChild(handleLink(v));
  } else {
    td.textContent = typeof v === 'number' ? String(v) : v;
  }
  return td;
}

async function loadRecords(chunk, from) {
  const name = state.selected;
  const table = state.byName.get(name);
  const r = await api('api/records?table=' + encodeURIComponent(name) + '&chunk=' + chunk + '&from=' + from + '&limit=100');
  state.chunk = chunk;
  for (const d of $('chunk-map').children) d.classList.toggle('selected', Number(d.dataset.chunk) === chunk);
  $('records-title').textContent = 'Chunk ' + chunk + ': ' + fmt(r.live) + ' of ' + fmt(r.slots)
    + ' slots live' + (from > 0 ? ', from slot ' + from : '') + (r.next >= 0 ? ' (first 100 shown)' : '');
  const t = $('records');
  t.replaceChildren();
  const head = el('tr');
  head.appendChild(el('th', table.kind === 'ComponentTable' ? 'row' : 'slot'));
  head.appendChild(el('th', table.kind === 'ComponentTable' ? 'entity' : 'handle'));
  for (const f of table.schema.fields) head.appendChild(el('th', f.name));
  t.appendChild(head);
  for (const rec of r.records) {
    const row = el('tr');
    row.appendChild(el('td', rec.slot));
    const h = el('td');
    h.appendChild(handleLink({ label: rec.label, handle: rec.handle, live: !rec.stale,
      target: table.kind === 'ComponentTable' ? table.entities : name }));
    row.appendChild(h);
    for (const v of rec.values) row.appendChild(valueCell(v));
    t.appendChild(row);
  }
  if (r.next >= 0) {
    const more = el('tr');
    const td = el('td');
    const a = el('a', 'next records from slot ' + r.next);
    a.href = '#';
    a.addEventListener('click', (e) => { e.preventDefault(); loadRecords(chunk, r.next).catch(report); });
    td.appendChild(a);
    more.appendChild(td);
    t.appendChild(more);
  }
}

async function showRecord(tableName, handle) {
  const box = $('record');
  box.replaceChildren();
  if (!state.byName.has(tableName)) {
    box.appendChild(el('p', 'Table ' + tableName + ' is not attached to this inspector.', 'error'));
    return;
  }
  const r = await api('api/record?table=' + encodeURIComponent(tableName) + '&handle=' + encodeURIComponent(handle));
  const table = state.byName.get(tableName);
  box.appendChild(el('h3', r.table + ' · ' + r.label + (r.live ? '' : ' (not live)')));
  if (!r.live) {
    box.appendChild(el('p', r.reason, 'error'));
    return;
  }
  const t = el('table', null, 'grid');
  t.id = 'record-fields';
  table.schema.fields.forEach((f, i) => {
    const row = el('tr');
    row.appendChild(el('th', f.name));
    row.appendChild(valueCell(r.values[i]));
    t.appendChild(row);
  });
  box.appendChild(t);
}

// ---- charts -------------------------------------------------------------------------------

/** 1200 -> "1.2k", 32014336 -> "32M": axis labels that fit. */
function compact(n) {
  if (n === null || n === undefined) return '';
  const a = Math.abs(n);
  for (const [size, suffix] of [[1e9, 'G'], [1e6, 'M'], [1e3, 'k']]) {
    if (a >= size) return Number((n / size).toFixed(1)) + suffix;
  }
  return String(n);
}

const COLORS = ['#1a5fd0', '#f08c00', '#2f9e44', '#c2255c', '#7048e8', '#0c8599', '#5c940d', '#e8590c'];

function makeCharts(names) {
  const mk = (id, key) => {
    const series = [{ label: 'frame' }];
    names.forEach((n, i) => series.push({ label: n, stroke: COLORS[i % COLORS.length], width: 1.5, spanGaps: false }));
    const data = [[]].concat(names.map(() => []));
    const chart = new uPlot({ width: 430, height: 190, scales: { x: { time: false } }, series: series,
      axes: [{ label: 'frame' }, { size: 60, values: (u, ticks) => ticks.map(compact) }], legend: { show: true } },
      data, $(id));
    return { chart: chart, key: key, element: $(id) };
  };
  return [mk('chart-live', 'live'), mk('chart-bytes', 'bytes'), mk('chart-changed', 'changed')];
}

async function refreshHistory() {
  const h = await api('api/history?after=' + state.lastFrame);
  const names = h.tables.map((t) => t.name);
  if (state.charts === null) {
    if (typeof uPlot === 'undefined') throw new Error('the charting library did not load');
    state.charts = makeCharts(names);
  }
  const hist = state.history;
  hist.frames.push(...h.frames);
  for (const t of h.tables) {
    let s = hist.series.get(t.name);
    if (!s) { s = { live: [], bytes: [], changed: [] }; hist.series.set(t.name, s); }
    s.live.push(...t.live);
    s.bytes.push(...t.bytes);
    s.changed.push(...t.changed);
  }
  const drop = Math.max(0, hist.frames.length - WINDOW);
  if (drop > 0) {
    hist.frames.splice(0, drop);
    for (const s of hist.series.values()) { s.live.splice(0, drop); s.bytes.splice(0, drop); s.changed.splice(0, drop); }
  }
  if (h.frames.length > 0) state.lastFrame = h.frames[h.frames.length - 1];
  for (const c of state.charts) {
    c.chart.setData([hist.frames.slice()].concat(names.map((n) => hist.series.get(n)[c.key].slice())));
    c.element.dataset.lastFrame = state.lastFrame;
    c.element.dataset.points = hist.frames.length;
  }
}

// ---- SQL ----------------------------------------------------------------------------------

async function runSql() {
  const text = $('sql-text').value;
  const status = $('sql-status');
  const error = $('sql-error');
  const result = $('sql-result');
  status.textContent = 'running…';
  error.hidden = true;
  $('sql-run').disabled = true;
  try {
    const r = await api('api/sql', { method: 'POST', body: text, headers: { 'Content-Type': 'text/plain; charset=utf-8' } });
    result.replaceChildren();
    const head = el('tr');
    for (const c of r.columns) head.appendChild(el('th', c.name)).title = c.type;
    result.appendChild(head);
    for (const row of r.rows) {
      const tr = el('tr');
      for (const v of row) tr.appendChild(el('td', v === null ? 'NULL' : v));
      result.appendChild(tr);
    }
    status.textContent = fmt(r.rowCount) + (r.rowCount === 1 ? ' row' : ' rows')
      + (r.truncated ? ' (more not shown: the row limit)' : '') + ' in ' + r.millis + ' ms';
    status.dataset.millis = r.millis;
  } catch (e) {
    result.replaceChildren();
    status.textContent = 'refused';
    error.textContent = e.message;
    error.hidden = false;
  } finally {
    $('sql-run').disabled = false;
  }
}

// ---- loop ---------------------------------------------------------------------------------

function report(e) {
  if (e && e.message === 'unauthorized') return;
  setStatus('the program does not answer: ' + (e && e.message ? e.message : e), true);
}

function every(ms, f) {
  let busy = false;
  const tick = () => {
    if (busy) return;
    busy = true;
    f().catch(report).finally(() => { busy = false; });
  };
  tick();
  setInterval(tick, ms);
}

document.addEventListener('DOMContentLoaded', () => {
  $('sql-run').addEventListener('click', () => runSql());
  $('sql-text').addEventListener('keydown', (e) => { if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) runSql(); });
  $('handle-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const text = $('handle-input').value.trim();
    if (text && state.selected) showRecord(state.selected, text).catch((err) => {
      $('record').replaceChildren(el('p', err.message, 'error'));
    });
  });
  every(1000, refreshTables);
  every(500, refreshHistory);
  every(1000, refreshChunks);
});
