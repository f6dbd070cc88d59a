import { QUOTA_DEFAULT_HOURS, QUOTA_ENV } from "@scalelab/scenarios/experiments";
import { afterEach, describe, expect, it, vi } from "vitest";
import { buildSkipsTypecheck, parseEnv } from "./env";

const base = { DATABASE_URL: "postgresql://lab:lab@127.0.0.1:5432/lab", REDIS_URL: "redis://127.0.0.1:6379" };

describe("parseEnv: the quotas", () => {
  it("defaults to 6 h per experiment and 24 h of queued work, the quotas' own defaults", () => {
    const env = parseEnv(base);
    expect([env.SCALELAB_MAX_EXPERIMENT_HOURS, env.SCALELAB_MAX_QUEUE_HOURS]).toEqual([6, 24]);
    expect([QUOTA_DEFAULT_HOURS.experiment, QUOTA_DEFAULT_HOURS.queue]).toEqual([6, 24]);
    expect(Object.keys(env)).toEqual(expect.arrayContaining([QUOTA_ENV.experiment, QUOTA_ENV.queue]));
  });

  it("takes hours with decimals", () => {
    const env = parseEnv({ ...base, SCALELAB_MAX_EXPERIMENT_HOURS: "0.5", SCALELAB_MAX_QUEUE_HOURS: "48" });
    expect([env.SCALELAB_MAX_EXPERIMENT_HOURS, env.SCALELAB_MAX_QUEUE_HOURS]).toEqual([0.5, 48]);
  });

  it.each(["0", "-1", "6h", "1e3", "9000", "abc", " "])("refuses %j, naming the variable and the range", (value) => {
    expect(() => parseEnv({ ...base, SCALELAB_MAX_QUEUE_HOURS: value })).toThrow(
      /SCALELAB_MAX_QUEUE_HOURS must be a number of hours above 0 and at most 8760/,
    );
    expect(() => parseEnv({ ...base, SCALELAB_MAX_EXPERIMENT_HOURS: value })).toThrow(/SCALELAB_MAX_EXPERIMENT_HOURS must be/);
  });
});

describe("buildSkipsTypecheck: the app image's next build", () => {
  afterEach(() => vi.unstubAllEnvs());

  it("checks the types unless SCALELAB_WEB_BUILD_TYPECHECK is off", () => {
    vi.stubEnv("SCALELAB_WEB_BUILD_TYPECHECK", "");
    expect(buildSkipsTypecheck()).toBe(false);
    vi.stubEnv("SCALELAB_WEB_BUILD_TYPECHECK", "on");
    expect(buildSkipsTypecheck()).toBe(false);
    vi.stubEnv("SCALELAB_WEB_BUILD_TYPECHECK", "off");
    expect(buildSkipsTypecheck()).toBe(true);
  });

  it("refuses another value, naming the variable and its values", () => {
    vi.stubEnv("SCALELAB_WEB_BUILD_TYPECHECK", "no");
    expect(() => buildSkipsTypecheck()).toThrow(/SCALELAB_WEB_BUILD_TYPECHECK must be on or off/);
  });
});
