// The search box: words separated by spaces, all of which must match. A word
// KEY=VALUE matches a label exactly; any other word matches part of the name
// (namespace/name for pods) or of a label written as key=value.

export function matcher(text) {
  const words = text.trim().toLowerCase().split(/\s+/).filter(Boolean);
  const test = (name, labels) => words.every((w) => {
    const eq = w.indexOf('=');
    if (eq > 0) {
      const key = w.slice(0, eq);
      const value = w.slice(eq + 1);
      for (const [k, v] of Object.entries(labels)) {
        if (k.toLowerCase() === key && String(v).toLowerCase() === value) return true;
      }
      return false;
    }
    if (name.toLowerCase().includes(w)) return true;
    for (const [k, v] of Object.entries(labels)) {
      if (`${k}=${v}`.toLowerCase().includes(w)) return true;
    }
    return false;
  });
  return {
    empty: words.length === 0,
    matchesNode: (n) => words.length === 0 || test(n.name, n.labels),
    matchesPod: (p) => words.length === 0 || test(p.key, p.labels),
  };
}
