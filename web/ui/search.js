// The search box: words separated by spaces, all of which must match, case
// aside. A word KEY=VALUE matches a label exactly; any other word matches part
// of the name (namespace/name for pods) or of a label written as key=value.
// Records carry their searchable text, built once (searchText), so a search
// over 100,000 pods is a substring test per pod.

export function searchText(name, labels) {
  let text = `\n${name}\n`;
  for (const [k, v] of Object.entries(labels ?? {})) text += `${k}=${v}\n`;
  return text.toLowerCase();
}

export function matcher(text) {
  const words = text.trim().toLowerCase().split(/\s+/).filter(Boolean);
  const needles = words.map((w) => (w.indexOf('=') > 0 ? `\n${w}\n` : w));
  return {
    empty: words.length === 0,
    // record: anything with a `search` field from searchText.
    matches: (record) => needles.every((n) => record.search.includes(n)),
  };
}

// A key that sorts names in human order with plain string comparison
// (sim-node-2 before sim-node-10), built once per record.
export function naturalKey(name) {
  return name.toLowerCase().replace(/\d+/g, (digits) => digits.padStart(12, '0'));
}

export const byOrder = (a, b) => (a.order < b.order ? -1 : a.order > b.order ? 1 : 0);
