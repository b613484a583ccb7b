// How the dashboard copes with a large cluster (not part of CTest): against a
// running `berth serve --sim-nodes 5000 --sim-zones 3`, loads /ui/, creates a
// deployment of PODS pods and reports how long the page took to show them,
// its render passes, long tasks and CPU profile meanwhile, then the time to
// answer a search, a hover and a full redraw.
//   cd tests/ui && URL=http://127.0.0.1:8080 PODS=20000 node dashboard_at_scale.mjs
import { execFileSync } from 'node:child_process';
import { chromium } from 'playwright-core';
import fs from 'fs'; import os from 'os'; import path from 'path';
const url = process.env.URL;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-'));
const ctx = await chromium.launchPersistentContext(dir, {executablePath: '/usr/bin/chromium', headless: true, viewport: {width: 1400, height: 900},
  args: ['--headless','--no-sandbox','--disable-gpu','--disable-quic','--no-first-run','--disable-background-networking','--disable-component-update','--disable-sync']});
const page = ctx.pages()[0];
page.setDefaultTimeout(120000);
let t0 = Date.now();
await page.goto(url + '/ui/');
await page.waitForFunction(() => document.getElementById('summary').dataset.nodes === '5000');
console.log('nodes shown after', Date.now() - t0, 'ms; renderMs', await page.evaluate(() => document.body.dataset.renderMs));
await page.evaluate(() => { window.longTasks = []; new PerformanceObserver((l) => { for (const e of l.getEntries()) window.longTasks.push(e.duration); }).observe({type: 'longtask', buffered: false}); });
const cdp = await ctx.newCDPSession(page); await cdp.send('Profiler.enable'); await cdp.send('Profiler.start');
execFileSync('kubectl', ['--server', url, 'apply', '-f', '-'], {input: `
apiVersion: apps/v1
kind: Deployment
metadata: {name: load}
spec:
  replicas: ${process.env.PODS}
  selector: {matchLabels: {app: load}}
  template:
    metadata: {labels: {app: load}}
    spec:
      containers:
      - {name: c, image: x, resources: {requests: {cpu: 500m, memory: 512Mi}}}
`});
t0 = Date.now();
const renders = [];
while (Date.now() - t0 < 90000) {
  const s = await page.evaluate(() => [document.getElementById('summary').textContent, +document.body.dataset.renderMs]);
  renders.push(s[1]);
  if (s[0].includes(`${process.env.PODS} running`)) break;
  await page.waitForTimeout(500);
}
console.log('all running shown after', Date.now() - t0, 'ms:', await page.evaluate(() => document.getElementById('summary').textContent));
const { profile } = await cdp.send('Profiler.stop');
const self = new Map(); const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const dt = profile.timeDeltas; const counts = new Map();
profile.samples.forEach((id, i) => counts.set(id, (counts.get(id) ?? 0) + (dt[i] ?? 0)));
for (const [id, us] of counts) { const n = byId.get(id); const k = `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').pop()}:${n.callFrame.lineNumber}`; self.set(k, (self.get(k) ?? 0) + us); }
console.log([...self].sort((a, b) => b[1] - a[1]).slice(0, 15).map(([k, v]) => `${(v / 1000).toFixed(0)}ms ${k}`).join('\n'));
renders.sort((a, b) => a - b);
console.log('render ms during load: median', renders[renders.length >> 1], 'max', renders[renders.length - 1]);
const lt = await page.evaluate(() => window.longTasks);
console.log('long tasks during load:', lt.length, 'max', Math.max(0, ...lt).toFixed(0), 'ms, total', lt.reduce((a, b) => a + b, 0).toFixed(0), 'ms');
let t = Date.now();
await page.fill('#search', 'sim-node-4242');
await page.waitForSelector('#node-matches li[data-node="sim-node-4242"]');
console.log('search answered in', Date.now() - t, 'ms (incl. 120 ms debounce); renderMs', await page.evaluate(() => document.body.dataset.renderMs));
await page.fill('#search', '');
await page.waitForTimeout(300);
const box = await page.locator('#map').boundingBox();
t = Date.now();
await page.mouse.move(box.x + 30, box.y + 30);
await page.waitForSelector('#tooltip:not([hidden])');
console.log('tooltip in', Date.now() - t, 'ms');
t = Date.now();
await page.evaluate(() => new Promise((r) => { window.dispatchEvent(new Event('resize')); requestAnimationFrame(() => requestAnimationFrame(r)); }));
console.log('full map redraw frame', Date.now() - t, 'ms; renderMs', await page.evaluate(() => document.body.dataset.renderMs));
if (process.env.SCREENSHOT) await page.screenshot({path: process.env.SCREENSHOT});
await ctx.close();
