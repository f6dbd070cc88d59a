import { SERVICE_ALIAS } from "../../names";
/**
 * HAProxy's statistics (`/stats;csv` on HAPROXY_STATS_PORT, HAProxy 2.6's `show stat` CSV), read
 * each second during a run, and the balancer's per-second figures derived from two readings.
 */

/** The backend of the lab's haproxy.cfg: `backend app` with `server-template app N app:<port>`. */
export const HAPROXY_BACKEND = SERVICE_ALIAS;

/** One row of the CSV: a server of the backend, or the backend's own row (svname `BACKEND`). */
export type HaproxyRow = {
  svname: string;
  /**
   * ip:port. HAProxy writes it only with `stats show-legends` in the stats section; without it
   * (the lab's haproxy.cfg so far) it is empty for every row.
   */
  addr: string;
  /** UP, DOWN, MAINT, "MAINT (resolution)", DRAIN, NOLB, "no check", "UP 1/3" (going down)… */
  status: string;
  /** Current sessions. */
  scur: number;
  /** Total sessions. */
  stot: number;
  hrsp_5xx: number;
  /** Response errors (the server closed or failed mid-response). */
  eresp: number;
  /** Connection errors. */
  econ: number;
  /** Retries on the same server. */
  wretr: number;
  /** Redispatches to another server. */
  wredis: number;
  /** Failed health checks (empty, so 0, on the BACKEND row). */
  chkfail: number;
  /** Seconds since the last status change. */
  lastchg: number;
  /**
   * Whether the row is a real server. False for a server-template slot Docker's DNS has not filled
   * (status `MAINT (resolution)`: no address; HAProxy puts a slot whose replica left DNS back in
   * that state once `hold obsolete` passes), or, when addresses are shown, one without an address
   * (empty or 0.0.0.0). Always true for the BACKEND row.
   */
  filled: boolean;
};

export type HaproxyStats = {
  /** The backend's servers, in the CSV's order (app1…appN). */
  servers: HaproxyRow[];
  /** The backend's own row; its counters also hold errors no server is charged with (no server left). */
  backend: HaproxyRow | undefined;
};

const NUMBERS = ["scur", "stot", "hrsp_5xx", "eresp", "econ", "wretr", "wredis", "chkfail", "lastchg"] as const;
type NumberField = (typeof NUMBERS)[number];
const REQUIRED = ["pxname", "svname", "status"] as const;

/** An empty, missing or non-numeric value reads as 0. */
function num(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === "") return 0;
  const n = Number(raw);
  return Number.isFinite(n) && n >= 0 ? n : 0;
}

/**
 * One CSV line. HAProxy quotes a field that holds a comma or a quote (csv_enc: "" inside quotes);
 * the lab's rows have none, but check descriptions may.
 */
function splitCsvLine(line: string): string[] {
  const fields: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === "") quoted = true;
    else if (c === ",") {
      fields.push(field);
      field = "";
    } else field += c;
  }
  fields.push(field);
  return fields;
}

/** No address: an empty addr or 0.0.0.0 / [::] with any port. */
const NO_ADDR = /^(?:|0\.0\.0\.0(?::\d+)?|\[?::\]?(?::\d+)?)$/;

/**
 * Parse `show stat` CSV (`/stats;csv`): the rows of `backend` (the lab's `app`), columns found by
 * name in the `# pxname,svname,...` header. Throws when the text has no such header or lacks
 * pxname, svname or status; other missing or empty columns read as 0.
 */
export function parseHaproxyCsv(text: string, backend: string = HAPROXY_BACKEND): HaproxyStats {
  const lines = text.split(/\r?\n/);
  const headerAt = lines.findIndex((l) => /^#\s*pxname,/.test(l));
  if (headerAt < 0) throw new Error("not HAProxy stats CSV: no '# pxname,svname,...' header line");
  const names = splitCsvLine(lines[headerAt]!.replace(/^#\s*/, ""));
  const column = new Map<string, number>();
  names.forEach((name, i) => {
    if (name !== "" && !column.has(name)) column.set(name, i);
  });
  const missing = REQUIRED.filter((c) => !column.has(c));
  if (missing.length > 0) throw new Error(`HAProxy stats CSV without column ${missing.join(", ")}`);

  const rows: HaproxyRow[] = [];
  let backendRow: HaproxyRow | undefined;
  const addrShown: boolean[] = [];
  for (const line of lines.slice(headerAt + 1)) {
    if (line.trim() === "" || line.startsWith("#")) continue;
    const fields = splitCsvLine(line);
    const get = (name: string) => {
      const i = column.get(name);
      return i === undefined ? undefined : fields[i];
    };
    if (get("pxname") !== backend) continue;
    const svname = get("svname") ?? "";
    if (svname === "FRONTEND") continue;
    const counts = Object.fromEntries(NUMBERS.map((n) => [n, num(get(n))])) as Record<NumberField, number>;
    const row: HaproxyRow = { svname, addr: (get("addr") ?? "").trim(), status: (get("status") ?? "").trim(), ...counts, filled: true };
    if (svname === "BACKEND") backendRow = row;
    else {
      rows.push(row);
      addrShown.push(row.addr !== "");
    }
  }
  // Addresses are all empty when the stats section lacks `show-legends`: then only the status tells.
  const withAddrs = addrShown.some(Boolean);
  for (const row of rows) {
    row.filled = !/\(resolution\)/i.test(row.status) && !(withAddrs && NO_ADDR.test(row.addr));
  }
  return { servers: rows, backend: backendRow };
}

/** The balancer's figure keys (FIGURE_DEFS, chart "balancer"). */
export const HAPROXY_FIGURE_KEYS = ["lb.up", "lb.down", "lb.sessions", "lb.retries", "lb.errors", "lb.checkFailures"] as const;

const isUp = (status: string) => /^UP\b/.test(status) || /^no check$/i.test(status);
const isDown = (status: string) => /^(DOWN|MAINT)\b/.test(status);

/** What a row's counter grew by since the previous reading; a counter that went back (HAProxy restarted) counts from zero. */
function growth(current: readonly HaproxyRow[], previous: readonly HaproxyRow[], pick: (r: HaproxyRow) => number): number {
  const before = new Map(previous.map((r) => [r.svname, pick(r)]));
  let sum = 0;
  for (const r of current) {
    const now = pick(r);
    const was = before.get(r.svname) ?? 0;
    sum += now >= was ? now - was : now;
  }
  return sum;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/**
 * The balancer's figures for one reading:
 * - lb.up: servers UP (including "no check"; "UP 1/3", still up while it fails checks);
 * - lb.down: servers DOWN ("DOWN 1/2" too, still down while it passes checks) or MAINT, not
 *   counting unfilled server-template slots (NOLB and DRAIN, which the lab's config never
 *   produces, count in neither);
 * - lb.sessions: current sessions of all servers;
 * - lb.retries: retries + redispatches per second (wretr + wredis);
 * - lb.errors: connection errors + response errors + 5xx answers per second (econ + eresp +
 *   hrsp_5xx: events, so one failed request may count twice);
 * - lb.checkFailures: failed health checks per second (chkfail of the servers).
 * Retries and errors come from the BACKEND row when there is one (it also holds errors no server
 * is charged with, such as a 503 with no server left), else from the servers. The rates need the
 * previous reading, `seconds` before; without one they are left out.
 */
export function haproxyFigures(current: HaproxyStats, previous: HaproxyStats | undefined, seconds = 1): Record<string, number> {
  if (!(seconds > 0) || !Number.isFinite(seconds)) throw new RangeError(`seconds must be a positive number, not ${seconds}`);
  const servers = current.servers.filter((s) => s.filled);
  const figures: Record<string, number> = {
    "lb.up": servers.filter((s) => isUp(s.status)).length,
    "lb.down": servers.filter((s) => isDown(s.status)).length,
    "lb.sessions": servers.reduce((sum, s) => sum + s.scur, 0),
  };
  if (!previous) return figures;
  const totals = (stats: HaproxyStats) => (current.backend ? (stats.backend ? [stats.backend] : []) : stats.servers);
  const rate = (rows: readonly HaproxyRow[], before: readonly HaproxyRow[], pick: (r: HaproxyRow) => number) =>
    round2(growth(rows, before, pick) / seconds);
  figures["lb.retries"] = rate(totals(current), totals(previous), (r) => r.wretr + r.wredis);
  figures["lb.errors"] = rate(totals(current), totals(previous), (r) => r.econ + r.eresp + r.hrsp_5xx);
  figures["lb.checkFailures"] = rate(current.servers, previous.servers, (r) => r.chkfail);
  return figures;
}
