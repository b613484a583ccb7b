// A small line chart on a canvas: a few series over the same x (time), the
// y axis from 0 to the largest value, labelled with `format`.

export function drawChart(canvas, series, format) {
  const ratio = window.devicePixelRatio || 1;
  const width = canvas.clientWidth;
  const height = canvas.clientHeight;
  if (canvas.width !== Math.round(width * ratio) || canvas.height !== Math.round(height * ratio)) {
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(height * ratio);
  }
  const g = canvas.getContext('2d');
  g.setTransform(ratio, 0, 0, ratio, 0, 0);
  g.clearRect(0, 0, width, height);
  const left = 48;
  const top = 6;
  const bottom = height - 14;
  const right = width - 4;
  let max = 0;
  let count = 0;
  for (const s of series) {
    for (const v of s.values) if (v != null && v > max) max = v;
    count = Math.max(count, s.values.length);
  }
  g.strokeStyle = '#dde2ea';
  g.fillStyle = '#6b7585';
  g.font = '11px system-ui, sans-serif';
  g.lineWidth = 1;
  g.beginPath();
  g.moveTo(left, top);
  g.lineTo(left, bottom);
  g.lineTo(right, bottom);
  g.stroke();
  g.textAlign = 'right';
  g.fillText(max > 0 ? format(max) : '', left - 4, top + 8);
  g.fillText(format(0), left - 4, bottom);
  if (count === 0) {
    g.textAlign = 'left';
    g.fillText('collecting…', left + 8, (top + bottom) / 2);
    return;
  }
  // The newest point sits at the right edge.
  const x = (i) => (count === 1 ? right : left + ((right - left) * i) / (count - 1));
  const y = (v) => bottom - (max > 0 ? ((bottom - top) * v) / max : 0);
  let legendX = right;
  g.textAlign = 'right';
  for (const s of [...series].reverse()) {
    g.strokeStyle = s.color;
    g.lineWidth = 1.5;
    g.beginPath();
    let pen = false;
    s.values.forEach((v, i) => {
      if (v == null) {
        pen = false;
        return;
      }
      if (pen) g.lineTo(x(i), y(v));
      else g.moveTo(x(i), y(v));
      pen = true;
    });
    g.stroke();
    const last = s.values[s.values.length - 1];
    if (last != null) {
      g.fillStyle = s.color;
      g.beginPath();
      g.arc(x(s.values.length - 1), y(last), 2.5, 0, 2 * Math.PI);
      g.fill();
    }
    if (s.label) {
      g.fillStyle = s.color;
      g.fillText(s.label, legendX, height - 2);
      legendX -= g.measureText(s.label).width + 10;
    }
  }
}
