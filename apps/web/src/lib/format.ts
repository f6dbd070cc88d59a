const nf = (digits: number) => new Intl.NumberFormat("en-US", { maximumFractionDigits: digits, minimumFractionDigits: 0 });
const int = nf(0);
const one = nf(1);
const two = nf(2);

export const dash = "—";

export function formatCount(n: number | null | undefined): string {
  return n === null || n === undefined ? dash : int.format(n);
}

/** Requests per second: whole numbers from 100 up, one decimal below. */
export function formatRps(n: number | null | undefined): string {
  if (n === null || n === undefined) return dash;
  return n >= 100 ? int.format(n) : one.format(n);
}

export function formatMs(n: number | null | undefined): string {
  if (n === null || n === undefined) return dash;
  if (n >= 1000) return `${two.format(n / 1000)} s`;
  return `${n >= 100 ? int.format(n) : n >= 10 ? one.format(n) : two.format(n)} ms`;
}

/** A fraction (0.0123) as a percentage ("1.23 %"). */
export function formatPct(fraction: number | null | undefined): string {
  if (fraction === null || fraction === undefined) return dash;
  return `${two.format(fraction * 100)} %`;
}

export function formatBytes(n: number | null | undefined): string {
  if (n === null || n === undefined) return dash;
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u += 1;
  }
  return `${u === 0 ? int.format(v) : one.format(v)} ${units[u]}`;
}

export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${Math.round(seconds)} s`;
  const m = Math.floor(seconds / 60);
  const s = Math.round(seconds % 60);
  return s === 0 ? `${m} min` : `${m} min ${s} s`;
}

/** Elapsed time between two ISO timestamps (the second defaults to `now`). */
export function formatElapsed(fromIso: string | null, toIso: string | null, now: number): string {
  if (!fromIso) return dash;
  const end = toIso ? Date.parse(toIso) : now;
  return formatDuration(Math.max(0, (end - Date.parse(fromIso)) / 1000));
}

/** In the browser's (or the given) time zone. */
export function formatTimestamp(iso: string | null, timeZone?: string): string {
  if (!iso) return dash;
  return new Date(iso).toLocaleString("en-GB", { dateStyle: "short", timeStyle: "medium", timeZone });
}

/** `sl-1a2b3c4d-app-0` → `app-0`: the run prefix (the run id's first 8 characters) says nothing on a run's own page. */
export function shortContainerName(name: string): string {
  return name.replace(/^sl-[a-z0-9-]{8}-/, "");
}

/** The load of a run in a few words: "4 VUs", "8 req/s", "wrk · 64 connections". */
export function loadLabel(w: { loadgen?: string; vus?: number; arrivalRate?: number; connections?: number }): string {
  if (w.loadgen === "wrk") return `wrk · ${w.connections ?? "?"} connections`;
  if (w.arrivalRate !== undefined) return `${w.arrivalRate} req/s`;
  return `${w.vus ?? "?"} VUs`;
}
