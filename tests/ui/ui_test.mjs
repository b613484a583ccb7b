// Drives Debian's chromium (headless, through npm's playwright-core) against
// a running `berth serve` with 16 simulated nodes in 3 zones: the dashboard
// shows the nodes, a new deployment's pods, an unschedulable pod's reason and
// the scheduling rate, and a screenshot is saved. Run by tests/e2e/ui_test.py,
// which passes BERTH_URL (the page's server), KUBE_SERVER (the API server
// kubectl writes to, BERTH_URL when unset), KUBECTL, KUBE_CACHE_DIR,
// SCREENSHOT and USER_DATA_DIR. With UI_CHECKS=scheduler (a standalone
// scheduler's page, 4 nodes in 2 zones) only the nodes, the pending pod's
// reason and the rate are checked. With UI_CHECKS=token (a server with
// --token-file, 4 nodes in 2 zones, BERTH_TOKEN the token to sign in with)
// the page must ask for the token first, refuse a wrong one, and keep the
// right one across a reload; then the same as the scheduler's checks.

import { execFileSync } from 'node:child_process';
import { chromium } from 'playwright-core';

const url = process.env.BERTH_URL;
const kubeServer = process.env.KUBE_SERVER || url;
const mode = process.env.UI_CHECKS || 'full';
const full = mode === 'full';
const [wantNodes, wantZones] = full ? [16, 3] : [4, 2];
const bearer = process.env.BERTH_TOKEN || '';
const env = { ...process.env, KUBECONFIG: '/nonexistent' };
const kTimeout = 30000;

function kubectl(args, input) {
  const auth = bearer ? ['--token', bearer] : [];
  return execFileSync(process.env.KUBECTL, ['--server', kubeServer, '--cache-dir', process.env.KUBE_CACHE_DIR, ...auth, ...args],
    { input, env, encoding: 'utf8', timeout: 60000 });
}

function step(name) {
  process.stdout.write(`ui_test: ${name}\n`);
}

async function searchAndDeploy(page) {
  step('search by label: one zone');
  await page.fill('#search', 'topology.kubernetes.io/zone=zone-a');
  await page.waitForFunction(() => {
    const items = [...document.querySelectorAll('#node-matches li[data-node]')];
    return items.length > 0 && items.every((li) => li.textContent.includes('zone-a'));
  });
  const zoneA = kubectl(['get', 'nodes', '-l', 'topology.kubernetes.io/zone=zone-a', '-o', 'name']).trim().split('\n').length;
  const shown = await page.locator('#node-matches li[data-node]').count();
  if (shown !== zoneA) throw new Error(`search shows ${shown} nodes of zone-a, kubectl lists ${zoneA}`);

  step('create a deployment and see its pods placed');
  kubectl(['apply', '-f', '-'], `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: nginx
        resources: {requests: {cpu: "2", memory: 1Gi}}
`);
  await page.fill('#search', 'app=web');
  await page.waitForFunction(() => {
    const items = [...document.querySelectorAll('#pod-matches li[data-pod^="default/web-"]')];
    return items.length === 3 && items.every((li) => / on sim-node-\d+/.test(li.textContent) && li.textContent.includes('Running'));
  });
  // The pod's node, opened from the search, lists the pod and its cpu.
  const first = page.locator('#pod-matches li[data-pod^="default/web-"]').first();
  const podKey = await first.getAttribute('data-pod');
  const nodeName = kubectl(['get', 'pod', podKey.split('/')[1], '-o', 'jsonpath={.spec.nodeName}']).trim();
  await first.click();
  await page.waitForFunction(([node, pod]) => {
    const d = document.getElementById('node-detail');
    return !d.hidden && d.textContent.includes(node) && d.textContent.includes(pod);
  }, [nodeName, podKey.split('/')[1]]);
  await page.waitForFunction(() => /cpu [2468] \/ 8/.test(document.getElementById('node-detail').textContent));
}

// The scheduler's explanation, when it answers, is shown instead of the
// condition: its summary and each suggestion. The answers here are the
// test's own (the endpoint's contract), for one pod; too-big's explanation
// is refused with a 404 so that the condition's message stands in.
async function routeExplanations(page) {
  await page.route('**/debug/explain/namespaces/default/pods/*', (route) => {
    if (route.request().url().endsWith('/pods/explained')) {
      return route.fulfill({
        status: 200,
        contentType: 'application/json',
        body: JSON.stringify({
          summary: '0/16 nodes are available: 16 Insufficient memory.',
          suggestions: ['lower the memory request by 992Gi to fit on sim-node-0'],
        }),
      });
    }
    return route.fulfill({
      status: 404,
      contentType: 'application/json',
      body: JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 }),
    });
  });
}

async function explained(page) {
  step('a pending pod with the scheduler\'s explanation');
  kubectl(['run', 'explained', '--image=nginx', '--overrides',
    JSON.stringify({ spec: { containers: [{ name: 'explained', image: 'nginx', resources: { requests: { memory: '1Ti' } } }] } })]);
  await page.waitForFunction(() => {
    const li = document.querySelector('#pending li[data-pod="default/explained"]');
    return li && li.querySelector('.reason')?.textContent === '0/16 nodes are available: 16 Insufficient memory.' &&
      li.querySelector('.suggestion')?.textContent === 'lower the memory request by 992Gi to fit on sim-node-0';
  });
}

// kubectl sends no token to a plain-HTTP server: with one, the pod is
// created over the API directly.
async function createTooBig() {
  const pod = {
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'too-big' },
    spec: { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: '100' } } }] },
  };
  if (!bearer) {
    kubectl(['apply', '-f', '-'], JSON.stringify(pod));
    return;
  }
  const response = await fetch(`${kubeServer}/api/v1/namespaces/default/pods`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${bearer}` },
    body: JSON.stringify(pod),
  });
  if (response.status !== 201) throw new Error(`creating too-big: ${response.status} ${await response.text()}`);
}

async function signIn(page) {
  step('the page asks for a bearer token and shows nothing else');
  await page.locator('#signin').waitFor({ state: 'visible' });
  if (await page.locator('#map-section').isVisible()) throw new Error('the cluster map shows before signing in');
  step('a wrong token is refused');
  await page.fill('#token', 'not-the-token');
  await page.click('#signin button[type=submit]');
  await page.waitForFunction(() => /401/.test(document.getElementById('signin-error').textContent));
  step('the right token signs in');
  await page.fill('#token', bearer);
  await page.click('#signin button[type=submit]');
  await page.locator('#signin').waitFor({ state: 'hidden' });
  const kept = await page.evaluate(() => sessionStorage.getItem('berth.token'));
  if (kept !== bearer) throw new Error(`sessionStorage holds ${JSON.stringify(kept)}, not the token`);
}

const context = await chromium.launchPersistentContext(process.env.USER_DATA_DIR, {
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  viewport: { width: 1400, height: 900 },
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const errors = [];
try {
  const page = context.pages()[0] ?? await context.newPage();
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  // A failed fetch is logged by the browser itself; the page handles those
  // (the explain endpoint may answer 404): only the page's own errors count.
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) errors.push(`console: ${m.text()}`);
  });
  page.setDefaultTimeout(kTimeout);

  if (full) await routeExplanations(page);
  step(`load ${url}/ui/ and see the ${wantNodes} nodes in ${wantZones} zones`);
  await page.goto(`${url}/ui/`);
  if (mode === 'token') await signIn(page);
  await page.waitForFunction(([n, z]) => document.getElementById('summary').dataset.nodes === String(n) &&
    document.getElementById('summary').textContent.includes(`${n} nodes in ${z} zones`), [wantNodes, wantZones]);
  await page.waitForFunction(() => document.getElementById('connection').textContent === 'live');
  // The map is drawn: the canvas grew to hold the zones' bands of tiles.
  const mapHeight = await page.evaluate(() => document.getElementById('map').clientHeight);
  if (mapHeight < 100) throw new Error(`the cluster map is ${mapHeight}px high`);

  if (mode === 'token') {
    step('reload: the token kept in the tab signs in again');
    await page.reload();
    await page.waitForFunction((n) => document.getElementById('summary').dataset.nodes === String(n), wantNodes);
    if (await page.locator('#signin').isVisible()) throw new Error('the page asked for the token again after a reload');
  }
  if (full) await searchAndDeploy(page);

  step('create an unschedulable pod and read its reason');
  await createTooBig();
  await page.fill('#search', '');
  await page.waitForFunction((n) => {
    const li = document.querySelector('#pending li[data-pod="default/too-big"]');
    return li && li.textContent.includes(`0/${n} nodes are available`) && /Insufficient cpu/.test(li.textContent);
  }, wantNodes);
  if (full) await explained(page);

  step('see the scheduling rate from /metrics');
  await page.waitForFunction(() => /pods\/s/.test(document.getElementById('throughput-now').textContent));

  await page.screenshot({ path: process.env.SCREENSHOT, fullPage: true });
  step(`screenshot ${process.env.SCREENSHOT}`);
  if (errors.length) throw new Error(errors.join('\n'));
  step('ok');
} finally {
  await context.close();
}
