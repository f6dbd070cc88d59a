import { z } from "zod";
import { TLatencyHistogram, ZLatencyHistogram } from "../../contract/latency";
import { TWorkload } from "../../contract/workload";
import { K6_METRICS } from "./script";
import { histogramCount } from "../histogram";

/*
 * The lab's k6 has an output extension (packages/images/xk6-scalelab) that records the request
 * duration (http_req_duration, or grpc_req_duration for gRPC: the metric the dashboard's latency
 * figures come from, every request of it) in the mergeable histogram of ../histogram.ts and
 * prints on stdout, beside k6's own output:
 *   {"type":"scalelab-hist","t":<s>,"count":N,"hist":{"<slot>":N,...}}   once a second is over (+0.5 s)
 *   {"type":"scalelab-hist-total","count":N,"hist":{...}}                 when the test ends
 * t counts whole seconds from the output's start by each request's own time (the dashboard,
 * another output, starts with it: its seconds and these agree to a few ms); lines come in order of
 * t, and a second without a request prints nothing.
 */

/** k6's flags for the output: the duration metric of the workload's protocol. */
export const k6HistogramFlags = (protocol: TWorkload["protocol"]): string[] => ["--out", `scalelab=${K6_METRICS[protocol].duration}`];

const ZLine = z.discriminatedUnion("type", [
  z.object({ type: z.literal("scalelab-hist"), t: z.number().int().nonnegative(), count: z.number().int(), hist: ZLatencyHistogram }),
  z.object({ type: z.literal("scalelab-hist-total"), count: z.number().int(), hist: ZLatencyHistogram }),
]);

export type K6HistogramLine = { type: "second"; t: number; histogram: TLatencyHistogram } | { type: "total"; histogram: TLatencyHistogram };

/** One line of k6's output: the output's histogram line, or undefined for anything else k6 prints. */
export function parseK6HistogramLine(line: string): K6HistogramLine | undefined {
  const text = line.trim();
  if (!text.startsWith('{"type":"scalelab-hist')) return undefined;
  const parsed = ZLine.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error(`k6's scalelab output printed an unexpected line: ${text.slice(0, 200)}`);
  const l = parsed.data;
  return l.type === "scalelab-hist" ? { type: "second", t: l.t, histogram: l.hist } : { type: "total", histogram: l.hist };
}

/**
 * The histograms of one k6 instance as its lines come, for the worker to join to the dashboard's
 * seconds: second t is known once a line of a later second (or the total) came, or at the end.
 */
export class K6Histograms {
  private readonly seconds = new Map<number, TLatencyHistogram>();
  private last = -1;
  private done = false;
  private totalHistogram: TLatencyHistogram | undefined;
  private waiters: (() => void)[] = [];

  push(line: string): void {
    const l = parseK6HistogramLine(line);
    if (!l) return;
    if (l.type === "second") {
      this.seconds.set(l.t, l.histogram);
      this.last = Math.max(this.last, l.t);
    } else {
      this.totalHistogram = l.histogram;
      this.done = true;
    }
    this.wake();
  }

  /** k6's output ended (or cannot be followed): every second is as known as it will be. */
  end(): void {
    this.done = true;
    this.wake();
  }

  /** Second t's histogram if it is known ({} for a second without requests), else undefined. */
  second(t: number): TLatencyHistogram | undefined {
    if (this.seconds.has(t)) return this.seconds.get(t);
    return this.last > t || this.totalHistogram ? {} : undefined;
  }

  total(): TLatencyHistogram | undefined {
    return this.totalHistogram;
  }

  /** Waits until second t is known, the output ended, or `ms` passed; then second(t). */
  async waitSecond(t: number, ms: number): Promise<TLatencyHistogram | undefined> {
    const deadline = Date.now() + ms;
    while (this.second(t) === undefined && !this.done && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.second(t);
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}

/**
 * The histogram to merge a k6 second with, or undefined when that second falls back to the worst
 * instance's percentiles: a second the dashboard counted requests in but whose histogram line came
 * without any (the output buckets by sample time, the dashboard by arrival) is not merged from nothing.
 */
export function mergeableSecond(histogram: TLatencyHistogram | undefined, requests: number): TLatencyHistogram | undefined {
  if (histogram === undefined) return undefined;
  return requests > 0 && histogramCount(histogram) === 0 ? undefined : histogram;
}
