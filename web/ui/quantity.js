// Kubernetes resource quantities ("250m", "1.5", "128Mi", "1e3") and what a
// pod requests, as the scheduler counts it.

const kBinary = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const kDecimal = { n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };

// The quantity's value as a number (cores for cpu, bytes for memory); 0 when
// it does not parse.
export function parseQuantity(text) {
  if (typeof text === 'number') return text;
  if (typeof text !== 'string') return 0;
  const m = /^([+-]?[0-9.]+)([eE][+-]?[0-9]+|[KMGTPE]i|[numkMGTPE]?)$/.exec(text.trim());
  if (!m) return 0;
  const number = parseFloat(m[1]);
  if (Number.isNaN(number)) return 0;
  const suffix = m[2];
  if (suffix.startsWith('e') || suffix.startsWith('E')) return number * 10 ** parseInt(suffix.slice(1), 10);
  return number * (kBinary[suffix] ?? kDecimal[suffix] ?? 1);
}

function requestsOf(container) {
  const r = container?.resources?.requests ?? {};
  return { cpu: parseQuantity(r.cpu), memory: parseQuantity(r.memory) };
}

// kube's PodRequests: the app containers' sum, restartable (sidecar) init
// containers added to it, the largest other init container (with the sidecars
// started before it) as a floor, and the pod overhead on top.
export function podRequests(spec) {
  const total = { cpu: 0, memory: 0 };
  for (const c of spec?.containers ?? []) {
    const r = requestsOf(c);
    total.cpu += r.cpu;
    total.memory += r.memory;
  }
  const sidecars = { cpu: 0, memory: 0 };
  const initFloor = { cpu: 0, memory: 0 };
  for (const c of spec?.initContainers ?? []) {
    const r = requestsOf(c);
    let need;
    if (c.restartPolicy === 'Always') {
      total.cpu += r.cpu;
      total.memory += r.memory;
      sidecars.cpu += r.cpu;
      sidecars.memory += r.memory;
      need = { ...sidecars };
    } else {
      need = { cpu: r.cpu + sidecars.cpu, memory: r.memory + sidecars.memory };
    }
    initFloor.cpu = Math.max(initFloor.cpu, need.cpu);
    initFloor.memory = Math.max(initFloor.memory, need.memory);
  }
  const overhead = spec?.overhead ?? {};
  return {
    cpu: Math.max(total.cpu, initFloor.cpu) + parseQuantity(overhead.cpu),
    memory: Math.max(total.memory, initFloor.memory) + parseQuantity(overhead.memory),
  };
}

export function formatCpu(cores) {
  if (cores >= 10) return `${cores.toFixed(0)}`;
  if (cores >= 1) return `${+cores.toFixed(2)}`;
  return `${Math.round(cores * 1000)}m`;
}

export function formatBytes(bytes) {
  const units = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi'];
  let i = 0;
  while (bytes >= 1024 && i < units.length - 1) {
    bytes /= 1024;
    i++;
  }
  return `${+bytes.toFixed(bytes >= 100 || i === 0 ? 0 : 1)}${units[i]}`;
}
