// A small 3-D view on a 2-D canvas (no WebGL: it draws in any browser, headless ones too):
// unit cubes with coloured, labelled faces and balls, seen in orthographic projection and
// turned by dragging. Equal axis-aligned cubes and balls drawn far to near (by centre depth)
// hide each other correctly in this projection.
//
//   const scene = new Scene(canvas);
//   scene.set([{kind: "cube", at: [x, y, z], color: "#8bc34a", text: "3",
//               faces: {"+z": {color: "#fff", text: "2", ink: "#000"}}},
//              {kind: "ball", at: [x, y, z], radius: 0.5, color: "#e91e63", text: "A"}]);
// Coordinates: z is up. Face keys: "+x", "-x", "+y", "-y", "+z", "-z". `ink`: the text's
// colour (dark by default; white reads better on a dark face). `outline`: a cube's edges in
// this colour, thick (a cube to find among the others).
// The canvas keeps its width and height attributes as its drawing size; the page's style
// scales it down to fit a narrow screen (common.css), and a drag is measured in the canvas's
// own pixels, so it turns the scene as much at any size.

const FACES = {
  "+x": [[1, 0, 0], [[1, -1, -1], [1, 1, -1], [1, 1, 1], [1, -1, 1]]],
  "-x": [[-1, 0, 0], [[-1, -1, -1], [-1, -1, 1], [-1, 1, 1], [-1, 1, -1]]],
  "+y": [[0, 1, 0], [[-1, 1, -1], [-1, 1, 1], [1, 1, 1], [1, 1, -1]]],
  "-y": [[0, -1, 0], [[-1, -1, -1], [1, -1, -1], [1, -1, 1], [-1, -1, 1]]],
  "+z": [[0, 0, 1], [[-1, -1, 1], [1, -1, 1], [1, 1, 1], [-1, 1, 1]]],
  "-z": [[0, 0, -1], [[-1, -1, -1], [-1, 1, -1], [1, 1, -1], [1, -1, -1]]],
};

export class Scene {
  constructor(canvas, {yaw = -0.6, pitch = 0.45} = {}) {
    this.canvas = canvas; this.context = canvas.getContext("2d");
    this.yaw = yaw; this.pitch = pitch; this.items = [];
    let last = null;
    canvas.addEventListener("pointerdown", (e) => {
      last = [e.clientX, e.clientY]; canvas.setPointerCapture(e.pointerId);
    });
    canvas.addEventListener("pointermove", (e) => {
      if (last === null) return;
      const zoom = canvas.width / (canvas.getBoundingClientRect().width || canvas.width);
      this.rotate((e.clientX - last[0]) * 0.01 * zoom, (e.clientY - last[1]) * 0.01 * zoom);
      last = [e.clientX, e.clientY];
    });
    canvas.addEventListener("pointerup", () => { last = null; });
  }

  set(items) { this.items = items; this.fit(); this.draw(); }

  rotate(dYaw, dPitch) {
    this.yaw += dYaw;
    this.pitch = Math.max(-1.5, Math.min(1.5, this.pitch + dPitch));
    this.draw();
  }

  fit() {
    if (this.items.length === 0) return;
    const low = [Infinity, Infinity, Infinity], high = [-Infinity, -Infinity, -Infinity];
    for (const item of this.items) {
      for (let k = 0; k < 3; k++) {
        low[k] = Math.min(low[k], item.at[k]); high[k] = Math.max(high[k], item.at[k]);
      }
    }
    this.centre = low.map((v, k) => (v + high[k]) / 2);
    const extent = Math.hypot(...high.map((v, k) => v - low[k])) + 1.8;
    this.scale = Math.min(this.canvas.width, this.canvas.height) / extent;
  }

  // Rotated coordinates: [screen x, depth (larger is farther), screen up].
  turn([x, y, z]) {
    const cy = Math.cos(this.yaw), sy = Math.sin(this.yaw);
    const cp = Math.cos(this.pitch), sp = Math.sin(this.pitch);
    const x1 = x * cy - y * sy, y1 = x * sy + y * cy;
    return [x1, y1 * cp - z * sp, y1 * sp + z * cp];
  }

  project(point) {
    const p = this.turn(point.map((v, k) => v - this.centre[k]));
    return [this.canvas.width / 2 + this.scale * p[0],
      this.canvas.height / 2 - this.scale * p[2], p[1]];
  }

  draw() {
    const g = this.context;
    g.clearRect(0, 0, this.canvas.width, this.canvas.height);
    if (this.items.length === 0) return;
    const order = this.items.map((item) => [this.project(item.at)[2], item]);
    order.sort((a, b) => b[0] - a[0]);
    for (const [, item] of order) {
      if (item.kind === "ball") this.ball(item); else this.cube(item);
    }
  }

  cube(item) {
    const g = this.context, half = item.size ? item.size / 2 : 0.5;
    for (const [key, [normal, corners]] of Object.entries(FACES)) {
      const n = this.turn(normal);
      if (n[1] >= -1e-6) continue;  // faces away from the viewer
      const face = (item.faces && item.faces[key]) || {};
      const points = corners.map((c) => this.project(c.map((v, k) => item.at[k] + half * v)));
      const light = 0.62 + 0.38 * Math.max(0, -n[1] * 0.6 + n[2] * 0.8);
      g.beginPath();
      points.forEach(([px, py], i) => (i ? g.lineTo(px, py) : g.moveTo(px, py)));
      g.closePath();
      g.fillStyle = shade(face.color || item.color || "#cccccc", light);
      g.fill();
      g.strokeStyle = item.outline || "#333"; g.lineWidth = item.outline ? 3.5 : 1;
      g.stroke();
      const text = face.text !== undefined ? face.text : item.text;
      if (text !== undefined && text !== null && -n[1] > 0.35) {
        const cx = points.reduce((a, p) => a + p[0], 0) / 4;
        const cy = points.reduce((a, p) => a + p[1], 0) / 4;
        label(g, String(text), cx, cy, this.scale * 0.45 * Math.sqrt(-n[1]),
          face.ink || item.ink);
      }
    }
  }

  ball(item) {
    const g = this.context, [px, py] = this.project(item.at);
    const r = this.scale * (item.radius || 0.5);
    const gradient = g.createRadialGradient(px - r / 3, py - r / 3, r / 8, px, py, r);
    gradient.addColorStop(0, shade(item.color || "#cccccc", 1.35));
    gradient.addColorStop(1, shade(item.color || "#cccccc", 0.7));
    g.beginPath(); g.arc(px, py, r, 0, 2 * Math.PI);
    g.fillStyle = gradient; g.fill();
    g.strokeStyle = "#333"; g.lineWidth = 0.8; g.stroke();
    if (item.text !== undefined && item.text !== null) {
      label(g, String(item.text), px, py, r * 0.9, item.ink);
    }
  }
}

function label(g, text, x, y, size, ink) {
  g.font = `bold ${Math.max(8, size).toFixed(0)}px sans-serif`;
  g.textAlign = "center"; g.textBaseline = "middle";
  g.fillStyle = ink || "#111"; g.fillText(text, x, y);
}

export function shade(color, factor) {
  const hex = color.replace("#", "");
  const full = hex.length === 3 ? hex.split("").map((c) => c + c).join("") : hex;
  const channels = [0, 2, 4].map((i) => parseInt(full.slice(i, i + 2), 16));
  const out = channels.map((c) => Math.max(0, Math.min(255, Math.round(c * factor))));
  return `rgb(${out.join(",")})`;
}
