import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { FIGURE_DEFS } from "../registry";
import { HAPROXY_FIGURE_KEYS, haproxyFigures, parseHaproxyCsv, HaproxyRow, HaproxyStats } from "./stats";

/**
 * Recorded from the lab's HAProxy image (HAProxy 2.6, Debian 12) with
 * renderHaproxyCfg({ algorithm: "roundrobin", replicas: 4 }), three testbed replicas (alias `app`)
 * and wrk on /hostname; one replica was stopped under load:
 * - haproxy-stats-previous.csv: app1–app3 UP, app4 unfilled (MAINT (resolution));
 * - haproxy-stats.csv, about 1 s later: app3 DOWN (L4CON), 5 redispatches, 1 response error.
 * - haproxy-stats-legends.csv: the same config plus `stats show-legends`, which adds `addr`.
 */
const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8");

const HEADER =
  "# pxname,svname,qcur,qmax,scur,smax,slim,stot,bin,bout,dreq,dresp,ereq,econ,eresp,wretr,wredis,status,weight,act,bck,chkfail,chkdown,lastchg,addr,";

/** A CSV of the app backend with the given columns per row (by name, in another order than HAProxy's). */
function csv(
  rows: Record<string, string | number>[],
  columns = ["svname", "status", "addr", "scur", "stot", "hrsp_5xx", "eresp", "econ", "wretr", "wredis", "chkfail", "lastchg"],
) {
  return (
    [`# pxname,${columns.join(",")},`, ...rows.map((r) => ["app", ...columns.map((c) => String(r[c] ?? ""))].join(",") + ",")].join("\n") +
    "\n"
  );
}

const row = (over: Partial<HaproxyRow>): HaproxyRow => ({
  svname: "app1",
  addr: "",
  status: "UP",
  scur: 0,
  stot: 0,
  hrsp_5xx: 0,
  eresp: 0,
  econ: 0,
  wretr: 0,
  wredis: 0,
  chkfail: 0,
  lastchg: 0,
  filled: true,
  ...over,
});

describe("parseHaproxyCsv on HAProxy's own CSV", () => {
  it("reads the app backend's servers and its BACKEND row, skipping the frontends", () => {
    const stats = parseHaproxyCsv(fixture("haproxy-stats.csv"));
    expect(stats.servers.map((s) => [s.svname, s.status, s.filled])).toEqual([
      ["app1", "UP", true],
      ["app2", "UP", true],
      ["app3", "DOWN", true],
      ["app4", "MAINT (resolution)", false],
    ]);
    expect(stats.servers[2]).toEqual({
      svname: "app3",
      addr: "",
      status: "DOWN",
      scur: 0,
      stot: 23619,
      hrsp_5xx: 0,
      eresp: 1,
      econ: 0,
      wretr: 0,
      wredis: 5,
      chkfail: 5,
      lastchg: 1,
      filled: true,
    });
    expect(stats.servers[0]).toMatchObject({ scur: 6, stot: 29352, lastchg: 22 });
    expect(stats.backend).toMatchObject({
      svname: "BACKEND",
      status: "UP",
      scur: 13,
      stot: 82317,
      eresp: 1,
      wredis: 5,
      chkfail: 0,
      filled: true,
    });
  });

  it("reads the addresses when the stats section shows them", () => {
    const stats = parseHaproxyCsv(fixture("haproxy-stats-legends.csv"));
    expect(stats.servers.map((s) => [s.svname, s.status, s.addr, s.filled])).toEqual([
      ["app1", "DOWN", "172.19.0.2:8080", true],
      ["app2", "MAINT (resolution)", "", false],
      ["app3", "UP", "172.19.0.6:8080", true],
      ["app4", "MAINT (resolution)", "", false],
    ]);
  });

  it("finds another backend by name and nothing for an unknown one", () => {
    const text = fixture("haproxy-stats.csv");
    expect(parseHaproxyCsv(text, "nope")).toEqual({ servers: [], backend: undefined });
  });
});

describe("parseHaproxyCsv on edge cases", () => {
  it("reads columns by name and empty or missing numbers as 0", () => {
    const stats = parseHaproxyCsv(
      csv(
        [
          { svname: "app1", status: "UP", scur: "", stot: 7 },
          { svname: "BACKEND", status: "UP", scur: 3, chkfail: "" },
        ],
        ["lastchg", "status", "stot", "svname", "scur", "chkfail"],
      ),
    );
    expect(stats.servers).toEqual([row({ svname: "app1", stot: 7 })]);
    expect(stats.backend).toEqual(row({ svname: "BACKEND", scur: 3 }));
  });

  it("tells unfilled slots by their status, or by a missing address when addresses are shown", () => {
    const stats = parseHaproxyCsv(
      csv([
        { svname: "app1", status: "UP", addr: "10.0.0.2:8080" },
        { svname: "app2", status: "MAINT", addr: "" },
        { svname: "app3", status: "MAINT", addr: "0.0.0.0:8080" },
        { svname: "app4", status: "MAINT", addr: "10.0.0.5:8080" },
        { svname: "app5", status: "MAINT (resolution)", addr: "" },
      ]),
    );
    expect(stats.servers.map((s) => [s.svname, s.filled])).toEqual([
      ["app1", true],
      ["app2", false],
      ["app3", false],
      ["app4", true],
      ["app5", false],
    ]);
  });

  it("keeps a server in MAINT by hand when no address is shown at all", () => {
    const stats = parseHaproxyCsv(
      csv([
        { svname: "app1", status: "UP" },
        { svname: "app2", status: "MAINT" },
      ]),
    );
    expect(stats.servers.map((s) => s.filled)).toEqual([true, true]);
  });

  it("reads quoted fields and CRLF line ends", () => {
    const text = `${HEADER}check_desc,\r\napp,app1,0,0,2,5,,9,0,0,0,0,,0,0,0,0,UP,1,1,0,0,0,3,"10.0.0.2:8080","Layer7 ""ok"", 200",\r\n`;
    expect(parseHaproxyCsv(text).servers).toEqual([row({ addr: "10.0.0.2:8080", scur: 2, stot: 9, lastchg: 3 })]);
  });

  it("rejects text that is not the stats CSV", () => {
    expect(() => parseHaproxyCsv("<html>503 Service Unavailable</html>")).toThrow(/no '# pxname,svname,...' header/);
    expect(() => parseHaproxyCsv("# pxname,scur\napp,1\n")).toThrow(/without column svname, status/);
    expect(() => parseHaproxyCsv("")).toThrow(/header/);
  });
});

describe("haproxyFigures", () => {
  it("counts one second of the recorded replica failure", () => {
    const previous = parseHaproxyCsv(fixture("haproxy-stats-previous.csv"));
    const current = parseHaproxyCsv(fixture("haproxy-stats.csv"));
    expect(haproxyFigures(previous, undefined)).toEqual({ "lb.up": 3, "lb.down": 0, "lb.sessions": 3 + 4 + 3 });
    expect(haproxyFigures(current, previous)).toEqual({
      "lb.up": 2,
      "lb.down": 1,
      "lb.sessions": 13,
      "lb.retries": 5,
      "lb.errors": 1,
      "lb.checkFailures": 5,
    });
  });

  it("does not count unfilled slots as down", () => {
    const stats = parseHaproxyCsv(fixture("haproxy-stats-legends.csv"));
    expect(haproxyFigures(stats, undefined)).toMatchObject({ "lb.up": 1, "lb.down": 1 });
  });

  it("counts transitional and check-less states", () => {
    const stats: HaproxyStats = {
      servers: [
        row({ svname: "app1", status: "UP 1/3", scur: 2 }),
        row({ svname: "app2", status: "DOWN 1/2" }),
        row({ svname: "app3", status: "no check", scur: 1 }),
        row({ svname: "app4", status: "MAINT" }),
        row({ svname: "app5", status: "MAINT (resolution)", scur: 4, filled: false }),
      ],
      backend: undefined,
    };
    expect(haproxyFigures(stats, undefined)).toEqual({ "lb.up": 2, "lb.down": 2, "lb.sessions": 3 });
  });

  it("divides by the seconds between the readings", () => {
    const previous: HaproxyStats = { servers: [row({ chkfail: 1 })], backend: row({ svname: "BACKEND", wretr: 2, econ: 1 }) };
    const current: HaproxyStats = {
      servers: [row({ chkfail: 4 })],
      backend: row({ svname: "BACKEND", wretr: 5, wredis: 3, econ: 2, eresp: 4, hrsp_5xx: 6 }),
    };
    expect(haproxyFigures(current, previous, 2)).toMatchObject({ "lb.retries": 3, "lb.errors": 5.5, "lb.checkFailures": 1.5 });
    expect(haproxyFigures(current, previous, 3)).toMatchObject({ "lb.retries": 2, "lb.errors": 3.67, "lb.checkFailures": 1 });
    expect(() => haproxyFigures(current, previous, 0)).toThrow(RangeError);
    expect(() => haproxyFigures(current, previous, Number.NaN)).toThrow(RangeError);
  });

  it("counts counters that went back (HAProxy restarted) from zero", () => {
    const previous: HaproxyStats = {
      servers: [row({ svname: "app1", chkfail: 10 }), row({ svname: "app2", chkfail: 3 })],
      backend: row({ svname: "BACKEND", wretr: 100, eresp: 50, hrsp_5xx: 7 }),
    };
    const current: HaproxyStats = {
      servers: [row({ svname: "app1", chkfail: 2 }), row({ svname: "app2", chkfail: 5 })],
      backend: row({ svname: "BACKEND", wretr: 4, eresp: 1, hrsp_5xx: 0 }),
    };
    expect(haproxyFigures(current, previous)).toMatchObject({ "lb.retries": 4, "lb.errors": 1, "lb.checkFailures": 2 + 2 });
  });

  it("falls back to the servers' counters without a BACKEND row", () => {
    const previous: HaproxyStats = { servers: [row({ svname: "app1", wretr: 1 }), row({ svname: "app2", econ: 2 })], backend: undefined };
    const current: HaproxyStats = {
      servers: [
        row({ svname: "app1", wretr: 3, wredis: 1 }),
        row({ svname: "app2", econ: 2, hrsp_5xx: 4 }),
        row({ svname: "app3", eresp: 1 }),
      ],
      backend: undefined,
    };
    expect(haproxyFigures(current, previous)).toMatchObject({ "lb.retries": 3, "lb.errors": 5 });
  });

  it("has a figure definition for every key it reports", () => {
    const defs = new Map(FIGURE_DEFS.map((d) => [d.key, d]));
    for (const key of HAPROXY_FIGURE_KEYS) expect(defs.get(key)?.chart, key).toBe("balancer");
    const previous = parseHaproxyCsv(fixture("haproxy-stats-previous.csv"));
    const current = parseHaproxyCsv(fixture("haproxy-stats.csv"));
    expect(Object.keys(haproxyFigures(current, previous)).sort()).toEqual([...HAPROXY_FIGURE_KEYS].sort());
    for (const key of ["lb.retries", "lb.errors", "lb.checkFailures"]) expect(defs.get(key)?.kind, key).toBe("rate");
  });
});
