// What every page shares: JSON calls that show the server's one-line error, and the run
// panel (start a run, follow its progress as server-sent events, stop it).

export async function api(path, body) {
  const options = body === undefined ? {} : {
    method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)};
  const response = await fetch(path, options);
  let data = null;
  try { data = await response.json(); } catch (e) { data = null; }
  if (!response.ok) {
    throw new Error((data && data.error) || `${response.status} ${response.statusText}`);
  }
  return data;
}

// Every run has a time limit: an empty field means the server's default, shown in it.
export function showTimeLimit(input, options) {
  input.placeholder = `${options.default_time_limit} (default)`;
  input.max = String(options.max_time_limit);
  input.title = `empty: the default, ${options.default_time_limit} s`;
}

export function showError(element, error) {
  element.textContent = error ? (error.message || String(error)) : "";
}

// The measures the CLI's live line shows, in its words (ilp_pyramid/progress.py).
const LABELS = {best: "best {} repeated cubes", current: "now {}", incumbent: "incumbent {}",
  bound: "bound {}", gap: "gap {}", nodes: "{} nodes", conflicts: "{} conflicts",
  moves: "{} moves", restarts: "{} restarts", repairs: "{} repairs"};

export function describe(info) {
  const parts = [];
  for (const [key, template] of Object.entries(LABELS)) {
    if (info[key] !== undefined && info[key] !== null) {
      parts.push(template.replace("{}", Number(info[key]).toLocaleString("en")));
    }
  }
  return parts.join("  ");
}

// A run: POST `path` with `body`, then follow /api/runs/<id>/events. `elements`: the
// progress line, the Stop button, the error line. `onDone(event)` gets the final event
// ({exit, result, error, stopped, seconds}).
export class RunPanel {
  constructor({progress, stop, error}) {
    this.progress = progress; this.stopButton = stop; this.error = error;
    this.run = null; this.source = null; this.timer = null;
    this.stopButton.disabled = true;
    this.stopButton.addEventListener("click", () => this.stop());
  }

  get running() { return this.run !== null; }

  async start(path, body, onDone) {
    showError(this.error, null);
    this.progress.textContent = "starting...";
    let started;
    try {
      started = await api(path, body);
    } catch (e) {
      this.progress.textContent = "";
      showError(this.error, e);
      return;
    }
    this.run = started.run;
    this.began = performance.now();
    this.info = {};
    this.stopButton.disabled = false;
    this.timer = setInterval(() => this.draw(), 250);
    this.source = new EventSource(`/api/runs/${this.run}/events`);
    this.source.addEventListener("progress", (m) => { this.info = JSON.parse(m.data).info; });
    this.source.addEventListener("done", (m) => {
      const event = JSON.parse(m.data);
      this.finish();
      this.progress.textContent = event.stopped ? `stopped after ${event.seconds} s`
        : `finished in ${event.seconds} s`;
      // A run stopped from the page says "interrupted" on stderr: no error, the user asked.
      if (event.exit !== 0 && event.error && !event.stopped) {
        showError(this.error, new Error(event.error));
      }
      onDone(event);
    });
    this.source.onerror = () => {
      if (this.run !== null && this.source.readyState === EventSource.CLOSED) {
        this.finish();
        showError(this.error, new Error("lost the connection to the server"));
      }
    };
  }

  draw() {
    const seconds = ((performance.now() - this.began) / 1000).toFixed(0);
    const measure = describe(this.info);
    this.progress.textContent = `running  ${seconds} s` + (measure ? `  ${measure}` : "");
  }

  async stop() {
    if (this.run === null) return;
    this.stopButton.disabled = true;
    try { await api(`/api/runs/${this.run}/stop`, {}); } catch (e) { showError(this.error, e); }
  }

  finish() {
    if (this.source) this.source.close();
    clearInterval(this.timer);
    this.source = null; this.run = null; this.stopButton.disabled = true;
  }
}
