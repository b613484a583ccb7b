// The dashboard's parts that need no page, under node's test runner:
// quantities and pod requests, the metrics parser and quantiles, the search
// words, list+watch against a scripted server (fetch replaced), and the
// bearer token sent with requests.
// Run by tests/e2e/ui_test.py (node --test).

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { histogramQuantile, parseSchedulingMetrics, SchedulingRate } from '../../web/ui/metrics.js';
import { parseQuantity, podRequests } from '../../web/ui/quantity.js';
import { byOrder, matcher, naturalKey, searchText } from '../../web/ui/search.js';
import { listWatch } from '../../web/ui/watch.js';
import { apiFetch, withAuth } from '../../web/ui/auth.js';

test('quantities in kube\'s notation', () => {
  const cases = [['250m', 0.25], ['2', 2], ['1.5', 1.5], ['128Mi', 128 * 2 ** 20], ['1Gi', 2 ** 30],
    ['1k', 1000], ['2M', 2e6], ['1e3', 1000], ['5E2', 500], ['100n', 1e-7], ['', 0], ['nonsense', 0], [undefined, 0]];
  for (const [text, want] of cases) assert.ok(Math.abs(parseQuantity(text) - want) < 1e-12, `${text}: ${parseQuantity(text)}`);
});

test('pod requests: containers, the largest init container, sidecars and overhead', () => {
  const c = (cpu, memory, extra = {}) => ({ resources: { requests: { cpu, memory } }, ...extra });
  assert.deepEqual(podRequests({ containers: [c('100m', '1Gi'), c('200m', '1Gi')] }), { cpu: 0.30000000000000004, memory: 2 ** 31 });
  // An init container larger than the app containers sets the floor.
  assert.equal(podRequests({ containers: [c('1', '1Mi')], initContainers: [c('3', '1Mi')] }).cpu, 3);
  // A sidecar (restartPolicy Always) runs beside the app containers and the later init containers.
  const sidecar = podRequests({
    containers: [c('1', '1Mi')],
    initContainers: [c('500m', '1Mi', { restartPolicy: 'Always' }), c('2', '1Mi')],
  });
  assert.equal(sidecar.cpu, 2.5);
  assert.equal(podRequests({ containers: [c('1', '0')], overhead: { cpu: '250m' } }).cpu, 1.25);
  assert.deepEqual(podRequests({ containers: [{}] }), { cpu: 0, memory: 0 });
});

const scrape = (scheduled, buckets) => [
  '# HELP scheduler_schedule_attempts_total Number of attempts to schedule pods',
  '# TYPE scheduler_schedule_attempts_total counter',
  `scheduler_schedule_attempts_total{profile="default-scheduler",result="scheduled"} ${scheduled}`,
  'scheduler_schedule_attempts_total{profile="default-scheduler",result="unschedulable"} 4',
  'scheduler_schedule_attempts_total_other 99',
  ...Object.entries(buckets).map(([le, n]) =>
    `scheduler_scheduling_attempt_duration_seconds_bucket{profile="default-scheduler",result="scheduled",le="${le}"} ${n}`),
  'scheduler_scheduling_attempt_duration_seconds_sum{profile="default-scheduler",result="scheduled"} 1.5',
].join('\n');

test('the scheduling metrics are summed over their labels', () => {
  const sample = parseSchedulingMetrics(scrape(10, { 0.001: 2, 0.01: 8, '+Inf': 10 }));
  assert.equal(sample.found, true);
  assert.equal(sample.scheduled, 10);
  assert.equal(sample.attempts, 14);
  assert.deepEqual([...sample.buckets], [[0.001, 2], [0.01, 8], [Infinity, 10]]);
  assert.equal(parseSchedulingMetrics('up 1\n').found, false);
});

test('quantiles interpolate inside the bucket, as histogram_quantile does', () => {
  const buckets = new Map([[0.001, 0], [0.002, 50], [0.004, 100], [Infinity, 100]]);
  assert.equal(histogramQuantile(0.5, buckets), 0.002);
  assert.ok(Math.abs(histogramQuantile(0.75, buckets) - 0.003) < 1e-12);
  assert.ok(Math.abs(histogramQuantile(0.25, buckets) - 0.0015) < 1e-12);
  // Above the last finite bound: that bound.
  assert.equal(histogramQuantile(0.99, new Map([[0.001, 1], [Infinity, 10]])), 0.001);
  assert.equal(histogramQuantile(0.5, new Map([[Infinity, 0]])), null);
});

test('rates come from the difference between two scrapes', () => {
  const rate = new SchedulingRate();
  assert.equal(rate.add(parseSchedulingMetrics(scrape(10, { 0.001: 2, 0.01: 8, '+Inf': 10 })), 1000), null);
  const point = rate.add(parseSchedulingMetrics(scrape(40, { 0.001: 2, 0.01: 38, '+Inf': 40 })), 4000);
  assert.equal(point.rate, 10);
  // All 30 new attempts fell in (0.001, 0.01]: the median is that bucket's middle.
  assert.ok(Math.abs(point.p50 - 0.0055) < 1e-12, String(point.p50));
  // A restarted scheduler (counters back to zero) gives no point.
  assert.equal(rate.add(parseSchedulingMetrics(scrape(1, { '+Inf': 1 })), 7000), null);
});

test('search words: names, label parts and exact key=value', () => {
  const node = { search: searchText('sim-node-3', { 'topology.kubernetes.io/zone': 'zone-a', gpu: 'yes' }) };
  assert.ok(matcher('').matches(node));
  assert.ok(matcher('').empty);
  assert.ok(matcher('node-3').matches(node));
  assert.ok(matcher('zone-a').matches(node));
  assert.ok(matcher('topology.kubernetes.io/zone=zone-a  gpu=yes').matches(node));
  assert.ok(!matcher('topology.kubernetes.io/zone=zone').matches(node));
  assert.ok(!matcher('node-3 zone-b').matches(node));
  const pod = { search: searchText('default/web-1', { app: 'web' }) };
  assert.ok(matcher('default/web').matches(pod));
  assert.ok(matcher('APP=WEB').matches(pod));
  assert.ok(!matcher('app=we').matches(pod));
  assert.ok(!matcher('web-1=').matches(pod));
});

test('names sort in human order', () => {
  const names = ['sim-node-10', 'sim-node-2', 'sim-node-1', 'a-100', 'a-20'];
  const sorted = names.map((name) => ({ name, order: naturalKey(name) })).sort(byOrder).map((r) => r.name);
  assert.deepEqual(sorted, ['a-20', 'a-100', 'sim-node-1', 'sim-node-2', 'sim-node-10']);
});

test('list, watch, relist on 410 and resume after a bookmark', { timeout: 20000 }, async () => {
  const object = (name, rv) => ({ metadata: { name, resourceVersion: rv } });
  const lines = (...events) => events.map((e) => JSON.stringify(e)).join('\n') + '\n';
  const json = (body, status = 200) => new Response(JSON.stringify(body), { status });
  const script = [
    ['/api/v1/pods', () => json({ items: [object('a', '3')], metadata: { resourceVersion: '5' } })],
    ['/api/v1/pods?watch=1&resourceVersion=5&', () => new Response(lines(
      { type: 'ADDED', object: object('b', '6') },
      { type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version' } }))],
    ['/api/v1/pods', () => json({ items: [object('c', '8')], metadata: { resourceVersion: '9' } })],
    ['/api/v1/pods?watch=1&resourceVersion=9&', () => new Response(lines(
      { type: 'MODIFIED', object: object('c', '10') },
      { type: 'BOOKMARK', object: object('', '12') }))],
    ['/api/v1/pods?watch=1&resourceVersion=12&', () => new Promise(() => {})],
  ];
  const asked = [];
  let mismatch;
  let done;
  const finished = new Promise((resolve) => { done = resolve; });
  const saved = globalThis.fetch;
  globalThis.fetch = async (url) => {
    asked.push(url);
    const [want, answer] = script[asked.length - 1] ?? [];
    if (!want || !url.startsWith(want)) {
      mismatch = `request ${asked.length}: ${url}, expected ${want}`;
      done();
      return new Promise(() => {});
    }
    if (asked.length === script.length) done();
    return answer();
  };
  const seen = [];
  try {
    listWatch('/api/v1/pods', {
      reset: (items) => seen.push(`reset ${items.map((o) => o.metadata.name).join(',')}`),
      apply: (type, o) => seen.push(`${type} ${o.metadata.name}`),
      state: () => {},
    });
    await finished;
  } finally {
    globalThis.fetch = saved;
  }
  assert.equal(mismatch, undefined);
  assert.deepEqual(seen, ['reset a', 'ADDED b', 'reset c', 'MODIFIED c']);
});

test('a kept bearer token goes with every request; a refused one is dropped', async () => {
  const kept = new Map();
  const savedFetch = globalThis.fetch;
  globalThis.sessionStorage = {
    getItem: (k) => kept.get(k) ?? null, setItem: (k, v) => kept.set(k, v), removeItem: (k) => kept.delete(k),
  };
  try {
    assert.deepEqual(withAuth({ Accept: 'application/json' }), { Accept: 'application/json' });
    kept.set('berth.token', 'abc');
    assert.deepEqual(withAuth({ Accept: 'application/json' }), { Accept: 'application/json', Authorization: 'Bearer abc' });
    const sent = [];
    globalThis.fetch = async (url, init) => {
      sent.push([url, init.headers.Authorization]);
      return { status: 200, ok: true };
    };
    assert.equal((await apiFetch('/api/v1/nodes?watch=1', { headers: { Accept: 'application/json' } })).status, 200);
    assert.deepEqual(sent, [['/api/v1/nodes?watch=1', 'Bearer abc']]);
    // No sign-in form here: a 401 is an error, and the token is forgotten.
    globalThis.fetch = async () => ({ status: 401, ok: false });
    await assert.rejects(apiFetch('/api/v1/nodes'), /401/);
    assert.equal(kept.has('berth.token'), false);
  } finally {
    globalThis.fetch = savedFetch;
    delete globalThis.sessionStorage;
  }
});
