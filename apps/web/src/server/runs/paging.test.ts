import { describe, expect, it } from "vitest";
import { decodeCursor, encodeCursor, likeContains, likePrefix, pageOf, parseBound, ZExperimentListInput, ZRunListInput } from "./paging";

const issuesOf = (input: unknown) => {
  const r = ZRunListInput.safeParse(input);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
};

describe("cursor", () => {
  it("decodes what it encodes, to the millisecond", () => {
    for (const order of ["newest", "oldest"] as const) {
      const c = { createdAt: new Date("2026-11-26T09:30:01.123Z"), id: "5f0c2c4e-1f7a-4a8e-9a55-3c1a7c1f2b11", order };
      const raw = encodeCursor(c);
      expect(raw).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(decodeCursor(raw)).toEqual(c);
    }
  });

  it("a cursor given before there was an order is a newest-first one", () => {
    const raw = Buffer.from(JSON.stringify(["2026-11-26T09:30:01.123Z", "r1"])).toString("base64url");
    expect(decodeCursor(raw)).toEqual({ createdAt: new Date("2026-11-26T09:30:01.123Z"), id: "r1", order: "newest" });
  });

  it.each([
    ["empty", ""],
    ["not base64url", "a b"],
    ["not JSON", Buffer.from("nope").toString("base64url")],
    ["an object", Buffer.from(JSON.stringify({ a: 1 })).toString("base64url")],
    ["a bad time", Buffer.from(JSON.stringify(["yesterday", "x"])).toString("base64url")],
    ["an impossible date", Buffer.from(JSON.stringify(["2026-02-31T00:00:00.000Z", "x"])).toString("base64url")],
    ["an empty id", Buffer.from(JSON.stringify(["2026-11-26T09:30:01.123Z", ""])).toString("base64url")],
    ["an id too long", Buffer.from(JSON.stringify(["2026-11-26T09:30:01.123Z", "x".repeat(65)])).toString("base64url")],
    ["an unknown order", Buffer.from(JSON.stringify(["2026-11-26T09:30:01.123Z", "x", "newest"])).toString("base64url")],
    ["four values", Buffer.from(JSON.stringify(["2026-11-26T09:30:01.123Z", "x", "oldest", 1])).toString("base64url")],
  ])("refuses %s", (_, raw) => {
    expect(decodeCursor(raw)).toBeNull();
  });

  it("a bad cursor is an issue naming cursor", () => {
    expect(issuesOf({ cursor: "garbage!" })).toEqual(["cursor: cursor is not one this API gave: pass a page's nextCursor unchanged"]);
  });

  it("a cursor of one order is refused with the other, naming cursor", () => {
    const at = new Date("2026-11-26T09:30:01.123Z");
    const oldest = encodeCursor({ createdAt: at, id: "r1", order: "oldest" });
    const newest = encodeCursor({ createdAt: at, id: "r1", order: "newest" });
    expect(issuesOf({ cursor: oldest })).toEqual([
      "cursor: cursor belongs to order=oldest, not order=newest: pass the order the cursor's page was read with, or start without a cursor",
    ]);
    expect(issuesOf({ cursor: newest, order: "oldest" })).toEqual([
      "cursor: cursor belongs to order=newest, not order=oldest: pass the order the cursor's page was read with, or start without a cursor",
    ]);
    expect(ZExperimentListInput.safeParse({ cursor: newest, order: "oldest" }).error?.issues[0]?.path).toEqual(["cursor"]);
    expect(ZRunListInput.parse({ cursor: oldest, order: "oldest" }).cursor).toEqual({ createdAt: at, id: "r1", order: "oldest" });
  });
});

describe("order", () => {
  it("is newest first unless asked", () => {
    expect(ZRunListInput.parse({}).order).toBe("newest");
    expect(ZRunListInput.parse({ order: "oldest" }).order).toBe("oldest");
    expect(ZExperimentListInput.parse({ order: "oldest" }).order).toBe("oldest");
  });
  it.each(["OLDEST", "asc", "", "desc"])("refuses %j, naming order and its values", (order) => {
    expect(issuesOf({ order })).toEqual(["order: order must be one of: newest, oldest"]);
  });
});

describe("pageOf", () => {
  const rows = [3, 2, 1].map((n) => ({ id: `r${n}`, createdAt: new Date(n * 1000) }));
  it("gives the cursor after the last row when there is one more", () => {
    const page = pageOf(rows, 2, "newest");
    expect(page.rows.map((r) => r.id)).toEqual(["r3", "r2"]);
    expect(decodeCursor(page.nextCursor!)).toEqual({ id: "r2", createdAt: new Date(2000), order: "newest" });
  });
  it("the cursor carries the order the page was read in", () => {
    const page = pageOf([...rows].reverse(), 2, "oldest");
    expect(decodeCursor(page.nextCursor!)).toEqual({ id: "r2", createdAt: new Date(2000), order: "oldest" });
  });
  it("no cursor on the last page", () => {
    expect(pageOf(rows, 3, "newest").nextCursor).toBeNull();
  });
});

describe("filters", () => {
  it("defaults: 100 runs, no filter", () => {
    expect(ZRunListInput.parse(undefined)).toEqual({ limit: 100, order: "newest" });
  });

  it("reads a query string's values", () => {
    const input = ZRunListInput.parse({
      limit: "25",
      status: "failed,cancelled",
      q: "  Replicas ",
      experiment: "none",
      loadgen: "wrk",
      from: "2026-11-01",
      to: "2026-11-26",
    });
    expect(input).toEqual({
      limit: 25,
      order: "newest",
      status: ["failed", "cancelled"],
      q: "Replicas",
      experiment: "none",
      loadgen: "wrk",
      from: new Date("2026-11-01T00:00:00.000Z"),
      to: new Date("2026-11-26T23:59:59.999Z"),
    });
  });

  it("takes a repeated status (?status=a&status=b) and a blank search as none", () => {
    expect(ZRunListInput.parse({ status: ["queued", "running"], q: "   " })).toEqual({
      limit: 100,
      order: "newest",
      status: ["queued", "running"],
    });
  });

  it.each([
    [{ limit: "0" }, "limit: limit must be between 1 and 500"],
    [{ limit: "501" }, "limit: limit must be between 1 and 500"],
    [{ limit: "1e2" }, "limit: limit must be a whole number between 1 and 500"],
    [{ status: "done" }, "status.0: status must be one or several of: queued, running, succeeded, failed, cancelled, interrupted"],
    [{ loadgen: "ab" }, "loadgen: loadgen must be one of: k6, wrk"],
    [{ q: "x".repeat(201) }, "q: q must be at most 200 characters"],
    [{ experiment: "" }, "experiment: experiment must be an experiment's id or none"],
    [{ from: "26/11/2026" }, "from: from must be a date (2026-11-26) or an ISO 8601 time (2026-11-26T09:30:00Z)"],
    [{ to: "2026-13-01" }, "to: to must be a date (2026-11-26) or an ISO 8601 time (2026-11-26T09:30:00Z)"],
    [{ from: "2026-11-26", to: "2026-11-25" }, "to: to must not be before from"],
  ])("refuses %j naming the field and the allowed values", (input, issue) => {
    expect(issuesOf(input)).toEqual([issue]);
  });

  it("parseBound: a date is a whole UTC day; a time keeps its offset", () => {
    expect(parseBound("2026-11-26", false)).toEqual(new Date("2026-11-26T00:00:00.000Z"));
    expect(parseBound("2026-11-26", true)).toEqual(new Date("2026-11-26T23:59:59.999Z"));
    expect(parseBound("2026-11-26T10:00:00+02:00", false)).toEqual(new Date("2026-11-26T08:00:00.000Z"));
    expect(parseBound("2026-11-26T10:00", false)).toBeNull();
  });

  it("experiments take a cursor, limit, q and from/to", () => {
    expect(ZExperimentListInput.parse({ q: "sweep", limit: "5", to: "2026-11-26" })).toEqual({
      q: "sweep",
      limit: 5,
      order: "newest",
      to: new Date("2026-11-26T23:59:59.999Z"),
    });
    expect(ZExperimentListInput.safeParse({ status: "failed" }).data).toEqual({ limit: 100, order: "newest" });
  });

  it("a search is literal: % and _ match themselves", () => {
    expect(likeContains("50%_a\\b")).toBe("%50\\%\\_a\\\\b%");
    expect(likePrefix("5f0c")).toBe("5f0c%");
  });
});
