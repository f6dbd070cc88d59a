import { describe, expect, it } from "vitest";
import { K6Histograms, k6HistogramFlags, mergeableSecond, parseK6HistogramLine } from "./histogram-output";

const second = (t: number, hist: Record<string, number>) =>
  JSON.stringify({ type: "scalelab-hist", t, count: Object.values(hist).reduce((a, b) => a + b, 0), hist });

describe("the k6 output's lines", () => {
  it("asks k6 for the duration metric of the protocol", () => {
    expect(k6HistogramFlags("http")).toEqual(["--out", "scalelab=http_req_duration"]);
    expect(k6HistogramFlags("grpc")).toEqual(["--out", "scalelab=grpc_req_duration"]);
  });

  it("are told apart from the rest of k6's output, and a broken one is an error", () => {
    expect(parseK6HistogramLine("running (05.0s), 00/20 VUs")).toBeUndefined();
    expect(parseK6HistogramLine('{"scalelab-script-summary":1}')).toBeUndefined();
    expect(parseK6HistogramLine(second(2, { "300": 4 }))).toEqual({ type: "second", t: 2, histogram: { "300": 4 } });
    expect(parseK6HistogramLine('{"type":"scalelab-hist-total","count":1,"hist":{"7":1}}')).toEqual({
      type: "total",
      histogram: { "7": 1 },
    });
    expect(() => parseK6HistogramLine('{"type":"scalelab-hist","t":-1,"hist":{}}')).toThrow(/unexpected line/);
  });

  it("make a second known once a later one came (a second without requests prints nothing), or at the end", async () => {
    const h = new K6Histograms();
    h.push(second(0, { "300": 1 }));
    expect(h.second(0)).toEqual({ "300": 1 });
    expect(h.second(1)).toBeUndefined();
    const waiting = h.waitSecond(1, 5000);
    h.push(second(2, { "301": 2 }));
    expect(await waiting).toEqual({});
    expect(await h.waitSecond(3, 20)).toBeUndefined();
    h.push('{"type":"scalelab-hist-total","count":3,"hist":{"300":1,"301":2}}');
    expect(h.second(3)).toEqual({});
    expect(h.total()).toEqual({ "300": 1, "301": 2 });
  });

  it("stop waiting when the output ends without the second", async () => {
    const h = new K6Histograms();
    const waiting = h.waitSecond(0, 5000);
    h.end();
    expect(await waiting).toBeUndefined();
  });
});

describe("mergeableSecond", () => {
  it("merges a second's histogram, an empty one only for a second without requests; a missing or empty line with requests falls back", () => {
    const h = { "300": 4 };
    expect(mergeableSecond(h, 4)).toBe(h);
    expect(mergeableSecond({}, 0)).toEqual({});
    expect(mergeableSecond({}, 12)).toBeUndefined();
    expect(mergeableSecond(undefined, 12)).toBeUndefined();
  });
});
