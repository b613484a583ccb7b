// list, then watch from the list's resourceVersion, as kube's reflector does:
// events are applied as they stream in (fetch streaming, one JSON event per
// line); a watch that ends is resumed from the last resourceVersion seen, and
// a 410 Expired (as an HTTP status or an ERROR event) starts over with a list.

import { apiFetch } from './auth.js';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

class Expired extends Error {}

export async function getJson(url) {
  const response = await apiFetch(url, { headers: { Accept: 'application/json' } });
  if (!response.ok) {
    let message = `${response.status} ${response.statusText}`;
    try {
      message = (await response.json()).message || message;
    } catch { /* not a Status */ }
    const error = new Error(`${url}: ${message}`);
    error.status = response.status;
    throw error;
  }
  return response.json();
}

function withQuery(path, params) {
  const query = new URLSearchParams(params).toString();
  return query ? `${path}${path.includes('?') ? '&' : '?'}${query}` : path;
}

async function watchFrom(path, resourceVersion, sink) {
  const url = withQuery(path, {
    watch: '1', resourceVersion, allowWatchBookmarks: 'true', timeoutSeconds: String(240 + Math.floor(Math.random() * 120)),
  });
  const response = await apiFetch(url, { headers: { Accept: 'application/json' } });
  if (response.status === 410) throw new Expired();
  if (!response.ok || !response.body) throw new Error(`watch ${path}: ${response.status}`);
  sink.state('live');
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffered += decoder.decode(value, { stream: true });
    // Lines are cut by index and the rest kept once per read: a read can
    // hold thousands of events.
    let start = 0;
    for (let newline; (newline = buffered.indexOf('\n', start)) >= 0; start = newline + 1) {
      const line = buffered.slice(start, newline).trim();
      if (!line) continue;
      const event = JSON.parse(line);
      if (event.type === 'ERROR') {
        if (event.object?.code === 410) throw new Expired();
        throw new Error(`watch ${path}: ${event.object?.message ?? 'error'}`);
      }
      const rv = event.object?.metadata?.resourceVersion;
      if (event.type !== 'BOOKMARK') sink.apply(event.type, event.object);
      if (rv) resourceVersion = rv;
    }
    buffered = buffered.slice(start);
  }
  return resourceVersion;
}

// Keeps `sink` ({reset(items), apply(type, object), state(name, error)}) in
// step with the collection at `path` for as long as the page lives.
// `listParams` narrows the first list (e.g. {limit: 500} for events).
export async function listWatch(path, sink, listParams = {}) {
  let backoff = 500;
  for (;;) {
    try {
      const list = await getJson(withQuery(path, listParams));
      sink.reset(list.items ?? []);
      let rv = list.metadata?.resourceVersion ?? '0';
      sink.state('live');
      backoff = 500;
      for (;;) {
        const started = Date.now();
        rv = await watchFrom(path, rv, sink);
        if (Date.now() - started < 1000) await sleep(1000);  // a server ending watches at once
      }
    } catch (error) {
      if (error instanceof Expired) continue;  // relist at once
      sink.state('down', error);
      await sleep(backoff);
      backoff = Math.min(backoff * 2, 10000);
    }
  }
}
