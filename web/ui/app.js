// berth's dashboard: the cluster's nodes, pods and events kept live through
// the watch API, scheduling rates from /metrics, explanations for pending pods
// from the scheduler. Everything is read from this page's own origin.

import { ClusterMap } from './map.js';
import { drawChart } from './chart.js';
import { parseSchedulingMetrics, SchedulingRate } from './metrics.js';
import { formatBytes, formatCpu, parseQuantity, podRequests } from './quantity.js';
import { getJson, listWatch } from './watch.js';
import { apiFetch, bindSignIn, ensureSignedIn } from './auth.js';
import { byOrder, matcher, naturalKey, searchText } from './search.js';

const kZoneLabel = 'topology.kubernetes.io/zone';
const kNoZone = '(no zone)';
const kMetricsPeriodMs = 3000;
const kExplainMaxAgeMs = 10000;
const kShownPending = 50;
const kShownMatches = 100;
const kShownEvents = 25;
const kKeptEvents = 2000;

const $ = (id) => document.getElementById(id);

// el('li', {class: 'x'}, 'text', child...): text is never parsed as HTML.
function el(tag, attributes = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attributes)) {
    if (v != null) e.setAttribute(k, v);
  }
  for (const c of children) if (c != null) e.append(c);
  return e;
}

// ---- state -------------------------------------------------------------

const nodes = new Map();  // name -> {name, labels, zone, cpu, memory, pods, ready, unschedulable}
const pods = new Map();  // ns/name -> pod record (see podRecord)
const usage = new Map();  // node name -> {cpu, memory, pods: Set(key)}
const pending = new Set();  // keys of pods waiting for a node
const events = new Map();  // uid -> event record
const explanations = new Map();  // pod key -> {rv, at, summary, suggestions, source}
let running = 0;
let query = matcher('');
let selectedNode = null;
const connections = { nodes: 'connecting', pods: 'connecting', events: 'connecting' };

function nodeRecord(o) {
  const labels = o.metadata?.labels ?? {};
  const allocatable = o.status?.allocatable ?? o.status?.capacity ?? {};
  const ready = (o.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
  return {
    name: o.metadata.name,
    labels,
    search: searchText(o.metadata.name, labels),
    order: naturalKey(o.metadata.name),
    zone: labels[kZoneLabel] || kNoZone,
    cpu: parseQuantity(allocatable.cpu),
    memory: parseQuantity(allocatable.memory),
    pods: parseQuantity(allocatable.pods),
    ready,
    unschedulable: !!o.spec?.unschedulable,
  };
}

function podRecord(o) {
  const requests = podRequests(o.spec);
  const scheduled = (o.status?.conditions ?? []).find((c) => c.type === 'PodScheduled');
  const key = `${o.metadata.namespace}/${o.metadata.name}`;
  return {
    key,
    search: searchText(key, o.metadata?.labels),
    order: naturalKey(key),
    namespace: o.metadata.namespace,
    name: o.metadata.name,
    labels: o.metadata?.labels ?? {},
    rv: o.metadata.resourceVersion,
    created: o.metadata.creationTimestamp ?? '',
    node: o.spec?.nodeName || '',
    phase: o.status?.phase || 'Pending',
    deleting: !!o.metadata.deletionTimestamp,
    schedulerName: o.spec?.schedulerName || 'default-scheduler',
    scheduledStatus: scheduled?.status ?? '',
    scheduledReason: scheduled?.reason ?? '',
    scheduledMessage: scheduled?.message ?? '',
    cpu: requests.cpu,
    memory: requests.memory,
  };
}

// Terminal pods hold nothing on their node (kube's scheduler cache drops them).
const holdsResources = (p) => p.node && p.phase !== 'Succeeded' && p.phase !== 'Failed';
const isPending = (p) => !p.node && p.phase === 'Pending' && !p.deleting;

function account(p, sign) {
  if (holdsResources(p)) {
    let u = usage.get(p.node);
    if (!u) usage.set(p.node, (u = { cpu: 0, memory: 0, pods: new Set() }));
    u.cpu += sign * p.cpu;
    u.memory += sign * p.memory;
    if (sign > 0) u.pods.add(p.key);
    else u.pods.delete(p.key);
  }
  if (p.phase === 'Running' && !p.deleting) running += sign;
  if (isPending(p)) {
    if (sign > 0) pending.add(p.key);
    else pending.delete(p.key);
  }
}

function putPod(o) {
  const p = podRecord(o);
  const old = pods.get(p.key);
  if (old) account(old, -1);
  pods.set(p.key, p);
  account(p, +1);
}

function dropPod(o) {
  const key = `${o.metadata.namespace}/${o.metadata.name}`;
  const old = pods.get(key);
  if (!old) return;
  account(old, -1);
  pods.delete(key);
  explanations.delete(key);
}

function eventRecord(o) {
  const involved = o.involvedObject ?? o.regarding ?? {};
  return {
    uid: o.metadata.uid ?? `${o.metadata.namespace}/${o.metadata.name}`,
    type: o.type || 'Normal',
    reason: o.reason || '',
    message: o.message || o.note || '',
    object: `${(involved.kind || '').toLowerCase()}/${involved.name || ''}`,
    namespace: involved.namespace || '',
    count: o.count || o.series?.count || 1,
    time: o.lastTimestamp || o.eventTime || o.series?.lastObservedTime || o.metadata.creationTimestamp || '',
  };
}

// Drops the oldest events in batches (not one sort per arriving event).
function trimEvents() {
  if (events.size <= kKeptEvents * 1.25) return;
  const oldest = [...events.values()].sort((a, b) => (a.time < b.time ? -1 : 1));
  for (const e of oldest.slice(0, events.size - kKeptEvents)) events.delete(e.uid);
}

// ---- rendering (batched: at most one pass per animation frame) ----------

// A busy cluster sends thousands of events a second: the page redraws at
// most every kRenderPeriodMs, whatever arrived meanwhile in one pass.
const kRenderPeriodMs = 150;
const dirty = new Set();
let frame = 0;
let lastRender = 0;
function invalidate(...parts) {
  for (const p of parts) dirty.add(p);
  if (frame) return;
  const wait = Math.max(0, lastRender + kRenderPeriodMs - performance.now());
  frame = setTimeout(() => requestAnimationFrame(render), wait);
}

let map;

function render() {
  frame = 0;
  const started = performance.now();
  lastRender = started;
  const parts = new Set(dirty);
  dirty.clear();
  if (parts.has('map')) renderMap();
  if (parts.has('summary')) renderSummary();
  if (parts.has('pending')) renderPending();
  if (parts.has('events')) renderEvents();
  if (parts.has('matches')) renderMatches();
  if (parts.has('detail')) renderDetail();
  // The last pass's cost, for anyone checking the page stays responsive.
  document.body.dataset.renderMs = (performance.now() - started).toFixed(1);
}

// Zones and the nodes in each, sorted; rebuilt only when a node comes, goes
// or changes zone (not on every pod event).
let nodeOrder = null;

function renderMap() {
  if (!nodeOrder) {
    const zones = new Map();
    for (const n of nodes.values()) {
      if (!zones.has(n.zone)) zones.set(n.zone, []);
      zones.get(n.zone).push(n);
    }
    nodeOrder = [...zones.entries()]
      .map(([zone, list]) => ({ zone, order: naturalKey(zone), names: list.sort(byOrder).map((n) => n.name) }))
      .sort((a, b) => (a.zone === kNoZone) - (b.zone === kNoZone) || byOrder(a, b));
  }
  const groups = nodeOrder.map(({ zone, names }) => ({
    zone,
    nodes: names.map((name) => {
      const n = nodes.get(name);
      const u = usage.get(name);
      return {
        name,
        cpu: n.cpu > 0 && u ? u.cpu / n.cpu : 0,
        memory: n.memory > 0 && u ? u.memory / n.memory : 0,
        ready: n.ready,
        unschedulable: n.unschedulable,
        match: query.matches(n),
      };
    }),
  }));
  map.setGroups(groups);
}

function renderSummary() {
  const zones = new Set([...nodes.values()].map((n) => n.zone));
  const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;
  $('summary').textContent =
    `${plural(nodes.size, 'node')} in ${plural(zones.size, 'zone')} · ${plural(pods.size, 'pod')}, ` +
    `${running} running, ${pending.size} pending`;
  $('summary').dataset.nodes = nodes.size;
  $('summary').dataset.pods = pods.size;
  const states = Object.values(connections);
  const state = states.every((s) => s === 'live') ? 'live' : states.includes('down') ? 'down' : 'connecting';
  $('connection').className = `state-${state}`;
  $('connection').textContent = state === 'live' ? 'live' : state === 'down' ? 'reconnecting' : 'connecting';
}

function podLine(p, withNode) {
  return el('li', { 'data-pod': p.key },
    el('span', { class: 'name' }, p.name), ' ', el('span', { class: 'ns' }, p.namespace), ' ',
    el('span', { class: `phase-${p.phase}` }, p.deleting ? 'Terminating' : p.phase),
    withNode && p.node ? el('span', { class: 'muted' }, ` on ${p.node}`) : null,
    p.cpu || p.memory ? el('span', { class: 'muted' }, ` · ${formatCpu(p.cpu)} cpu, ${formatBytes(p.memory)}`) : null);
}

function renderPending() {
  const list = [...pending].map((k) => pods.get(k)).filter((p) => p && query.matches(p));
  list.sort((a, b) => (a.created < b.created ? -1 : a.created > b.created ? 1 : byOrder(a, b)));
  $('pending-count').textContent = `${pending.size}`;
  const items = list.slice(0, kShownPending).map((p) => {
    const x = explanations.get(p.key);
    const li = el('li', { 'data-pod': p.key }, el('span', { class: 'name' }, p.name), ' ', el('span', { class: 'ns' }, p.namespace));
    if (x && x.summary) {
      li.append(el('div', { class: 'reason' }, x.summary));
      for (const s of x.suggestions) li.append(el('div', { class: 'suggestion' }, s));
    } else if (p.scheduledMessage) {
      li.append(el('div', { class: 'reason' }, p.scheduledMessage));
    } else {
      li.append(el('div', { class: 'muted' }, `waiting for ${p.schedulerName}`));
    }
    return li;
  });
  if (list.length > kShownPending) items.push(el('li', { class: 'muted' }, `and ${list.length - kShownPending} more`));
  if (items.length === 0) items.push(el('li', { class: 'muted' }, pending.size ? 'none match the search' : 'none'));
  $('pending').replaceChildren(...items);
}

function renderEvents() {
  const list = [...events.values()].sort((a, b) => (a.time < b.time ? 1 : a.time > b.time ? -1 : 0));
  const items = list.slice(0, kShownEvents).map((e) =>
    el('li', { class: `event-${e.type}` }, el('span', { class: 'reason-tag' }, e.reason),
      el('span', { class: 'muted' }, `${e.namespace ? `${e.namespace}/` : ''}${e.object}${e.count > 1 ? ` ×${e.count}` : ''} `),
      e.message, el('div', { class: 'muted', title: e.time }, age(e.time))));
  if (items.length === 0) items.push(el('li', { class: 'muted' }, 'none'));
  $('events').replaceChildren(...items);
}

// "12s ago", "5m ago": the age of an RFC 3339 time.
function age(time) {
  const seconds = Math.max(0, Math.round((Date.now() - Date.parse(time)) / 1000));
  if (Number.isNaN(seconds)) return time;
  if (seconds < 120) return `${seconds}s ago`;
  if (seconds < 7200) return `${Math.round(seconds / 60)}m ago`;
  if (seconds < 172800) return `${Math.round(seconds / 3600)}h ago`;
  return `${Math.round(seconds / 86400)}d ago`;
}

function renderMatches() {
  const section = $('matches');
  if (query.empty) {
    section.hidden = true;
    return;
  }
  section.hidden = false;
  const nodeList = [...nodes.values()].filter((n) => query.matches(n)).sort(byOrder);
  const podList = [...pods.values()].filter((p) => query.matches(p)).sort(byOrder);
  $('node-match-count').textContent = `(${nodeList.length})`;
  $('pod-match-count').textContent = `(${podList.length})`;
  const nodeItems = nodeList.slice(0, kShownMatches).map((n) => {
    const li = el('li', { 'data-node': n.name }, el('span', { class: 'name' }, n.name), el('span', { class: 'muted' }, ` ${n.zone}`));
    li.addEventListener('click', () => select(n.name));
    return li;
  });
  const podItems = podList.slice(0, kShownMatches).map((p) => {
    const li = podLine(p, true);
    if (p.node) li.addEventListener('click', () => select(p.node));
    return li;
  });
  if (nodeList.length > kShownMatches) nodeItems.push(el('li', { class: 'muted' }, `and ${nodeList.length - kShownMatches} more`));
  if (podList.length > kShownMatches) podItems.push(el('li', { class: 'muted' }, `and ${podList.length - kShownMatches} more`));
  $('node-matches').replaceChildren(...nodeItems);
  $('pod-matches').replaceChildren(...podItems);
}

function bar(kind, used, total) {
  const percent = total > 0 ? Math.min(100, (100 * used) / total) : 0;
  const fill = el('span');
  fill.style.width = `${percent}%`;
  return el('span', { class: `bar ${kind}` }, fill);
}

// A node's figures and pods: the tooltip and the detail panel.
function describeNode(name, limit) {
  const n = nodes.get(name);
  const u = usage.get(name) ?? { cpu: 0, memory: 0, pods: new Set() };
  const box = el('div');
  if (!n) return box;
  box.append(el('div', { class: 'name' }, n.name), el('div', {}, `zone ${n.zone}${n.ready ? '' : ' · NotReady'}${n.unschedulable ? ' · unschedulable' : ''}`),
    el('div', {}, bar('cpu', u.cpu, n.cpu), ` cpu ${formatCpu(u.cpu)} / ${formatCpu(n.cpu)}`),
    el('div', {}, bar('memory', u.memory, n.memory), ` memory ${formatBytes(u.memory)} / ${formatBytes(n.memory)}`),
    el('div', {}, `${u.pods.size} / ${n.pods || '?'} pods`));
  const list = [...u.pods].map((k) => pods.get(k)).filter(Boolean).sort(byOrder);
  const ul = el('ul');
  for (const p of list.slice(0, limit)) ul.append(limit > 20 ? podLine(p, false) : el('li', {}, `${p.namespace}/${p.name}`));
  if (list.length > limit) ul.append(el('li', { class: 'muted' }, `and ${list.length - limit} more`));
  box.append(ul);
  return box;
}

function renderDetail() {
  const panel = $('node-detail');
  if (!selectedNode || !nodes.has(selectedNode)) {
    panel.hidden = true;
    return;
  }
  panel.hidden = false;
  panel.replaceChildren(el('h2', {}, 'Node'), describeNode(selectedNode, 500));
}

function select(name) {
  selectedNode = name;
  map.setSelected(name);
  invalidate('detail');
}

// ---- live data -----------------------------------------------------------

function sink(name, { reset, apply, parts }) {
  return {
    reset(items) {
      reset(items);
      invalidate(...parts, 'summary');
    },
    apply(type, object) {
      apply(type, object);
      invalidate(...parts, 'summary');
    },
    state(state, error) {
      connections[name] = state;
      if (error) console.warn(`${name}:`, error.message);
      invalidate('summary');
    },
  };
}

function watchNodes() {
  listWatch('/api/v1/nodes', sink('nodes', {
    reset(items) {
      nodes.clear();
      for (const o of items) nodes.set(o.metadata.name, nodeRecord(o));
      nodeOrder = null;
    },
    apply(type, o) {
      const old = nodes.get(o.metadata.name);
      if (type === 'DELETED') {
        nodes.delete(o.metadata.name);
        nodeOrder = null;
        return;
      }
      const n = nodeRecord(o);
      nodes.set(n.name, n);
      if (!old || old.zone !== n.zone) nodeOrder = null;
    },
    parts: ['map', 'matches', 'detail'],
  }));
}

function watchPods() {
  listWatch('/api/v1/pods', sink('pods', {
    reset(items) {
      pods.clear();
      usage.clear();
      pending.clear();
      running = 0;
      for (const o of items) putPod(o);
    },
    apply(type, o) {
      if (type === 'DELETED') dropPod(o);
      else putPod(o);
    },
    parts: ['map', 'pending', 'matches', 'detail'],
  }));
}

function watchEvents() {
  // The first list is capped: the page shows recent events, not the history.
  listWatch('/api/v1/events', sink('events', {
    reset(items) {
      events.clear();
      for (const o of items) events.set(o.metadata.uid, eventRecord(o));
      trimEvents();
    },
    apply(type, o) {
      if (type === 'DELETED') events.delete(o.metadata.uid);
      else events.set(o.metadata.uid, eventRecord(o));
      trimEvents();
    },
    parts: ['events'],
  }), { limit: '500' });
}

// The scheduler's explanation of each shown pending pod, refreshed when the
// pod changes or the answer grows old. Without the endpoint (404, 503) the
// pod's PodScheduled condition message stands in.
let explaining = false;
async function explainPending() {
  if (explaining) return;
  explaining = true;
  try {
    const shown = [...pending].map((k) => pods.get(k)).filter(Boolean)
      .sort((a, b) => (a.created < b.created ? -1 : 1)).slice(0, kShownPending);
    for (const p of shown) {
      const have = explanations.get(p.key);
      if (have && have.rv === p.rv && Date.now() - have.at < kExplainMaxAgeMs) continue;
      let answer = { rv: p.rv, at: Date.now(), summary: '', suggestions: [] };
      try {
        const x = await getJson(`/debug/explain/namespaces/${encodeURIComponent(p.namespace)}/pods/${encodeURIComponent(p.name)}`);
        answer = { ...answer, summary: typeof x.summary === 'string' ? x.summary : '', suggestions: Array.isArray(x.suggestions) ? x.suggestions.map(String) : [] };
      } catch {
        // No explanation: the condition message is shown instead.
      }
      if (pods.has(p.key)) explanations.set(p.key, answer);
      invalidate('pending');
    }
  } finally {
    explaining = false;
  }
}

const rates = new SchedulingRate(100);
async function scrapeMetrics() {
  try {
    const response = await apiFetch('/metrics');
    if (!response.ok) throw new Error(`/metrics: ${response.status}`);
    const sample = parseSchedulingMetrics(await response.text());
    $('metrics-note').textContent = sample.found ? '' : 'no scheduler metrics at /metrics (is the scheduler running?)';
    const point = rates.add(sample);
    if (point) {
      $('throughput-now').textContent = `${point.rate.toFixed(1)} pods/s`;
      $('latency-now').textContent = point.p99 == null ? 'no attempts' : `p50 ${ms(point.p50)} · p99 ${ms(point.p99)}`;
    }
  } catch (error) {
    $('metrics-note').textContent = error.message;
  }
  drawCharts();
}

const ms = (seconds) => (seconds == null ? '–' : seconds < 0.001 ? `${(seconds * 1e6).toFixed(0)}µs` : `${(seconds * 1000).toFixed(seconds < 0.01 ? 2 : 1)}ms`);

function drawCharts() {
  const points = rates.points;
  drawChart($('throughput-chart'), [{ values: points.map((p) => p.rate), color: '#2f7de1', label: 'scheduled/s' }], (v) => v.toFixed(v >= 10 ? 0 : 1));
  drawChart($('latency-chart'), [
    { values: points.map((p) => p.p50), color: '#2e9d5b', label: 'p50' },
    { values: points.map((p) => p.p90), color: '#c98a12', label: 'p90' },
    { values: points.map((p) => p.p99), color: '#d93f3f', label: 'p99' },
  ], ms);
}

// ---- start ----------------------------------------------------------------

async function start() {
  bindSignIn({ form: $('signin'), input: $('token'), error: $('signin-error'), signOut: $('signout') });
  await ensureSignedIn();
  map = new ClusterMap($('map'), $('tooltip'), {
    describe: (name) => describeNode(name, 15),
    select,
  });
  let typing = 0;
  $('search').addEventListener('input', () => {
    clearTimeout(typing);
    typing = setTimeout(() => {
      query = matcher($('search').value);
      invalidate('map', 'pending', 'matches');
    }, 120);
  });
  window.addEventListener('resize', () => {
    invalidate('map');
    drawCharts();
  });
  watchNodes();
  watchPods();
  watchEvents();
  scrapeMetrics();
  setInterval(scrapeMetrics, kMetricsPeriodMs);
  setInterval(explainPending, 2000);
  setInterval(() => invalidate('events'), 10000);  // the ages
  invalidate('map', 'summary', 'pending', 'events');
}

start();
