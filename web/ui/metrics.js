// Scheduling throughput and latency from the Prometheus text at /metrics:
// pods scheduled per second from scheduler_schedule_attempts_total{result="scheduled"},
// attempt latency quantiles from scheduler_scheduling_attempt_duration_seconds
// buckets, both over the interval between two scrapes (as rate() and
// histogram_quantile() over that window would).

const kAttempts = 'scheduler_schedule_attempts_total';
const kBuckets = 'scheduler_scheduling_attempt_duration_seconds_bucket';

function parseLabels(text) {
  const labels = {};
  const re = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;
  let m;
  while ((m = re.exec(text)) !== null) labels[m[1]] = m[2].replace(/\\(.)/g, (_, c) => (c === 'n' ? '\n' : c));
  return labels;
}

// {found, scheduled, attempts, buckets: Map(le -> cumulative count)} summed
// over every other label (profile, result).
export function parseSchedulingMetrics(text) {
  const sample = { found: false, scheduled: 0, attempts: 0, buckets: new Map() };
  for (const line of text.split('\n')) {
    if (!line.startsWith(kAttempts) && !line.startsWith(kBuckets)) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})?\s+(\S+)/.exec(line);
    if (!m) continue;
    const value = parseFloat(m[3]);
    if (Number.isNaN(value)) continue;
    const labels = parseLabels(m[2] ?? '');
    if (m[1] === kAttempts) {
      sample.found = true;
      sample.attempts += value;
      if (labels.result === 'scheduled') sample.scheduled += value;
    } else if (m[1] === kBuckets) {
      const le = labels.le === '+Inf' ? Infinity : parseFloat(labels.le);
      sample.buckets.set(le, (sample.buckets.get(le) ?? 0) + value);
    }
  }
  return sample;
}

// Prometheus' histogram_quantile over cumulative buckets (Map le -> count):
// linear interpolation inside the bucket holding the rank; null without data.
export function histogramQuantile(q, buckets) {
  const sorted = [...buckets.entries()].sort((a, b) => a[0] - b[0]);
  if (sorted.length === 0) return null;
  const total = sorted[sorted.length - 1][1];
  if (!(total > 0)) return null;
  const rank = q * total;
  let lowerBound = 0;
  let lowerCount = 0;
  for (const [le, count] of sorted) {
    if (count >= rank) {
      if (le === Infinity) return lowerBound;
      if (count === lowerCount) return le;
      return lowerBound + ((le - lowerBound) * (rank - lowerCount)) / (count - lowerCount);
    }
    lowerBound = le;
    lowerCount = count;
  }
  return lowerBound;
}

// Turns successive scrapes into points {t, rate, p50, p90, p99} (the last `keep`).
export class SchedulingRate {
  constructor(keep = 120) {
    this.keep = keep;
    this.previous = null;
    this.points = [];
  }

  add(sample, t = Date.now()) {
    const previous = this.previous;
    this.previous = { sample, t };
    if (!previous || !sample.found) return null;
    const seconds = (t - previous.t) / 1000;
    // A restarted scheduler starts its counters again from zero.
    if (seconds <= 0 || sample.scheduled < previous.sample.scheduled) return null;
    const delta = new Map();
    for (const [le, count] of sample.buckets) delta.set(le, count - (previous.sample.buckets.get(le) ?? 0));
    const point = {
      t,
      rate: (sample.scheduled - previous.sample.scheduled) / seconds,
      p50: histogramQuantile(0.5, delta),
      p90: histogramQuantile(0.9, delta),
      p99: histogramQuantile(0.99, delta),
    };
    this.points.push(point);
    if (this.points.length > this.keep) this.points.shift();
    return point;
  }
}
