import { describe, expect, it } from "vitest";
import { mergeTimeline, newerFirst, olderFirst, type Keyed } from "./runs-timeline";

const at = (id: string, minute: number): Keyed => ({ id, createdAt: `2026-11-26T10:${String(minute).padStart(2, "0")}:00.000Z` });
const ids = (rows: { item: Keyed }[]) => rows.map((r) => r.item.id);

describe("newerFirst", () => {
  it("orders by time, then by id, both descending, as the API pages", () => {
    const list = [at("a", 1), at("c", 3), at("b", 3), at("d", 2)].sort(newerFirst);
    expect(list.map((k) => k.id)).toEqual(["c", "b", "d", "a"]);
  });
});

describe("olderFirst", () => {
  it("orders by time, then by id, both ascending, as the API pages with order=oldest", () => {
    const list = [at("a", 1), at("c", 3), at("b", 3), at("d", 2)].sort(olderFirst);
    expect(list.map((k) => k.id)).toEqual(["a", "d", "b", "c"]);
  });
});

describe("mergeTimeline, oldest first", () => {
  it("interleaves two finished streams, the oldest first", () => {
    const m = mergeTimeline({ items: [at("r1", 10), at("r3", 30)], hasMore: false }, { items: [at("e2", 20)], hasMore: false }, "oldest");
    expect(ids(m.rows)).toEqual(["r1", "e2", "r3"]);
    expect([m.held, m.next]).toEqual([0, null]);
  });

  it("holds back what an unloaded page of the other stream could precede: newer items, this time", () => {
    // Runs have more pages: their next page holds runs newer than r40, possibly older than e45.
    const m = mergeTimeline(
      { items: [at("r10", 10), at("r40", 40)], hasMore: true },
      { items: [at("e20", 20), at("e45", 45)], hasMore: false },
      "oldest",
    );
    expect(ids(m.rows)).toEqual(["r10", "e20", "r40"]);
    expect([m.held, m.next]).toEqual([1, "runs"]);
  });

  it("with both streams unfinished, loads the one whose last loaded item comes first", () => {
    const m = mergeTimeline(
      { items: [at("r10", 10), at("r40", 40)], hasMore: true },
      { items: [at("e20", 20), at("e30", 30)], hasMore: true },
      "oldest",
    );
    expect(ids(m.rows)).toEqual(["r10", "e20", "e30"]);
    expect([m.held, m.next]).toEqual([1, "experiments"]);
  });
});

describe("mergeTimeline", () => {
  it("interleaves two finished streams by time", () => {
    const m = mergeTimeline({ items: [at("r3", 30), at("r1", 10)], hasMore: false }, { items: [at("e2", 20)], hasMore: false });
    expect(ids(m.rows)).toEqual(["r3", "e2", "r1"]);
    expect([m.held, m.next]).toEqual([0, null]);
  });

  it("holds back what an unloaded page of the other stream could precede, and names the stream to load", () => {
    // Runs have more pages: their next page holds runs older than r40, possibly newer than e20.
    const m = mergeTimeline(
      { items: [at("r50", 50), at("r40", 40)], hasMore: true },
      { items: [at("e45", 45), at("e20", 20)], hasMore: false },
    );
    expect(ids(m.rows)).toEqual(["r50", "e45", "r40"]);
    expect([m.held, m.next]).toEqual([1, "runs"]);
  });

  it("with both streams unfinished, the newer last item bounds the list", () => {
    const m = mergeTimeline(
      { items: [at("r50", 50), at("r10", 10)], hasMore: true },
      { items: [at("e45", 45), at("e30", 30)], hasMore: true },
    );
    expect(ids(m.rows)).toEqual(["r50", "e45", "e30"]);
    expect([m.held, m.next]).toEqual([1, "experiments"]);
  });

  it("shows nothing while a stream with more has not loaded its first page", () => {
    const m = mergeTimeline({ items: [], hasMore: true }, { items: [at("e1", 1)], hasMore: false });
    expect([m.rows.length, m.held, m.next]).toEqual([0, 1, "runs"]);
  });

  it("places every item exactly once when the pages are loaded one by one to the end", () => {
    const runs = Array.from({ length: 23 }, (_, i) => at(`r${i}`, i * 2));
    const experiments = Array.from({ length: 7 }, (_, i) => at(`e${i}`, i * 7 + 1));
    const pages = (list: Keyed[]) => [...list].sort(newerFirst);
    const [rAll, eAll] = [pages(runs), pages(experiments)];
    let [r, e] = [5, 2];
    let m = mergeTimeline({ items: rAll.slice(0, r), hasMore: r < rAll.length }, { items: eAll.slice(0, e), hasMore: e < eAll.length });
    for (let guard = 0; m.next && guard < 100; guard++) {
      if (m.next === "runs") r += 5;
      else e += 2;
      m = mergeTimeline({ items: rAll.slice(0, r), hasMore: r < rAll.length }, { items: eAll.slice(0, e), hasMore: e < eAll.length });
    }
    expect(ids(m.rows)).toEqual([...runs, ...experiments].sort(newerFirst).map((k) => k.id));
  });
});
