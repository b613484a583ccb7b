// The cluster map: one tile per node, grouped in bands by zone, drawn on a
// single canvas (a few thousand rectangles per frame, no DOM per node). A
// tile's left half fills with the cpu its pods request, the right half with
// memory, as fractions of the node's allocatable. Hover and click find the
// tile under the pointer from the band arithmetic alone.

const kGap = 2;
const kBandHead = 18;
const kSizes = [96, 72, 56, 44, 34, 26, 20, 15, 11, 8, 6, 5];

export class ClusterMap {
  // hooks: {describe(node) -> tooltip element, select(name)}
  constructor(canvas, tooltip, hooks) {
    this.canvas = canvas;
    this.tooltip = tooltip;
    this.hooks = hooks;
    this.bands = [];  // [{zone, nodes, y, columns}]
    this.size = 20;
    this.selected = null;
    this.hovered = null;
    this.colors = {};
    canvas.addEventListener('mousemove', (e) => this.hover(e));
    canvas.addEventListener('mouseleave', () => this.hover(null));
    canvas.addEventListener('click', (e) => {
      const node = this.nodeAt(e);
      this.hooks.select(node ? node.name : null);
    });
  }

  // groups: [{zone, nodes: [{name, cpu, memory, ready, unschedulable, match}]}],
  // cpu and memory as fractions (0..1) of allocatable.
  setGroups(groups) {
    this.groups = groups;
    this.draw();
  }

  setSelected(name) {
    this.selected = name;
    this.draw();
  }

  layout(width) {
    const available = Math.max(240, Math.min(window.innerHeight - 140, 900));
    const total = this.groups.reduce((n, g) => n + g.nodes.length, 0);
    let size = kSizes[kSizes.length - 1];
    for (const s of kSizes) {
      const columns = Math.max(1, Math.floor((width + kGap) / (s + kGap)));
      let height = 0;
      for (const g of this.groups) height += kBandHead + Math.ceil(g.nodes.length / columns) * (s + kGap) + 6;
      if (height <= available || total === 0) {
        size = s;
        break;
      }
    }
    const columns = Math.max(1, Math.floor((width + kGap) / (size + kGap)));
    let y = 0;
    this.bands = this.groups.map((g) => {
      const band = { zone: g.zone, nodes: g.nodes, y, columns };
      y += kBandHead + Math.ceil(g.nodes.length / columns) * (size + kGap) + 6;
      return band;
    });
    this.size = size;
    return Math.max(y, 40);
  }

  draw() {
    if (!this.groups) return;
    if (!this.colors.tile) {
      // Read once: getComputedStyle forces a style pass over the whole page.
      const css = getComputedStyle(document.documentElement);
      for (const name of ['cpu', 'memory', 'tile', 'bad', 'ink', 'muted']) {
        this.colors[name] = css.getPropertyValue(`--${name}`).trim();
      }
    }
    const ratio = window.devicePixelRatio || 1;
    const width = this.canvas.clientWidth || 600;
    const height = this.layout(width);
    if (this.canvas.style.height !== `${height}px`) this.canvas.style.height = `${height}px`;
    if (this.canvas.width !== Math.round(width * ratio) || this.canvas.height !== Math.round(height * ratio)) {
      this.canvas.width = Math.round(width * ratio);
      this.canvas.height = Math.round(height * ratio);
    }
    const g = this.canvas.getContext('2d');
    g.setTransform(ratio, 0, 0, ratio, 0, 0);
    g.clearRect(0, 0, width, height);
    const s = this.size;
    const c = this.colors;
    g.font = '12px system-ui, sans-serif';
    g.textBaseline = 'middle';
    if (this.bands.length === 0) {
      g.fillStyle = c.muted;
      g.fillText('no nodes', 4, 20);
    }
    for (const band of this.bands) {
      g.fillStyle = c.muted;
      g.textAlign = 'left';
      g.fillText(`${band.zone}  ·  ${band.nodes.length} node${band.nodes.length === 1 ? '' : 's'}`, 0, band.y + 8);
      band.nodes.forEach((node, i) => {
        const x = (i % band.columns) * (s + kGap);
        const y = band.y + kBandHead + Math.floor(i / band.columns) * (s + kGap);
        g.globalAlpha = node.match ? 1 : 0.15;
        g.fillStyle = c.tile;
        g.fillRect(x, y, s, s);
        const half = s / 2;
        const cpu = Math.min(1, node.cpu) * s;
        const memory = Math.min(1, node.memory) * s;
        g.fillStyle = c.cpu;
        g.fillRect(x, y + s - cpu, half, cpu);
        g.fillStyle = c.memory;
        g.fillRect(x + half, y + s - memory, s - half, memory);
        if (node.unschedulable) {
          g.fillStyle = 'rgba(120,128,140,0.55)';
          g.fillRect(x, y, s, s);
        }
        if (!node.ready) {
          g.strokeStyle = c.bad;
          g.lineWidth = Math.max(1, s / 12);
          g.strokeRect(x + g.lineWidth / 2, y + g.lineWidth / 2, s - g.lineWidth, s - g.lineWidth);
        }
        if (node.name === this.selected || node.name === this.hovered) {
          g.strokeStyle = c.ink;
          g.lineWidth = 2;
          g.strokeRect(x - 1, y - 1, s + 2, s + 2);
        }
        if (s >= 44) {
          g.fillStyle = c.ink;
          g.font = '10px system-ui, sans-serif';
          g.textAlign = 'center';
          const label = node.name.length * 5.5 > s ? `…${node.name.slice(-Math.floor(s / 5.5) + 1)}` : node.name;
          g.fillText(label, x + half, y + 8, s - 2);
          g.font = '12px system-ui, sans-serif';
        }
      });
    }
    g.globalAlpha = 1;
  }

  nodeAt(event) {
    const rect = this.canvas.getBoundingClientRect();
    const px = event.clientX - rect.left;
    const py = event.clientY - rect.top;
    const s = this.size;
    for (const band of this.bands) {
      const top = band.y + kBandHead;
      const rows = Math.ceil(band.nodes.length / band.columns);
      if (py < top || py >= top + rows * (s + kGap)) continue;
      const column = Math.floor(px / (s + kGap));
      const row = Math.floor((py - top) / (s + kGap));
      if (column < 0 || column >= band.columns) return null;
      if (px - column * (s + kGap) > s || py - top - row * (s + kGap) > s) return null;
      return band.nodes[row * band.columns + column] ?? null;
    }
    return null;
  }

  hover(event) {
    const node = event ? this.nodeAt(event) : null;
    const name = node ? node.name : null;
    if (name !== this.hovered) {
      this.hovered = name;
      this.draw();
    }
    if (!node) {
      this.tooltip.hidden = true;
      return;
    }
    this.tooltip.replaceChildren(this.hooks.describe(node.name));
    this.tooltip.hidden = false;
    const wrap = this.canvas.parentElement.getBoundingClientRect();
    const x = event.clientX - wrap.left + 14;
    const y = event.clientY - wrap.top + 14;
    this.tooltip.style.left = `${Math.min(x, wrap.width - this.tooltip.offsetWidth - 4)}px`;
    this.tooltip.style.top = `${y}px`;
  }
}
