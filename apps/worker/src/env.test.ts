import { describe, expect, it } from "vitest";
import { instanceId, parseEnv } from "./env";

describe("parseEnv", () => {
  it("reads the URLs and defaults the Docker socket", () => {
    expect(parseEnv({ DATABASE_URL: "postgresql://u:p@127.0.0.1:5432/db", REDIS_URL: "redis://127.0.0.1:6379" })).toEqual({
      DATABASE_URL: "postgresql://u:p@127.0.0.1:5432/db",
      REDIS_URL: "redis://127.0.0.1:6379",
      SCALELAB_DOCKER_SOCKET: "/var/run/docker.sock",
    });
  });

  it("names every missing or bad variable in one error", () => {
    expect(() => parseEnv({ REDIS_URL: "http://nope" })).toThrow(
      /DATABASE_URL: is required\n {2}REDIS_URL: REDIS_URL must be a redis:\/\/ URL/,
    );
  });
});

describe("instanceId", () => {
  const env = (url: string, instance?: string) => parseEnv({ DATABASE_URL: url, REDIS_URL: "redis://r", SCALELAB_INSTANCE: instance });

  it("tells databases apart but not credentials", () => {
    const a = instanceId(env("postgresql://a:x@127.0.0.1:5432/scalelab"));
    expect(a).toMatch(/^[0-9a-f]{12}$/);
    expect(instanceId(env("postgresql://b:y@127.0.0.1/scalelab"))).toBe(a);
    expect(instanceId(env("postgresql://a:x@127.0.0.1:5432/scalelab_test"))).not.toBe(a);
  });

  it("takes SCALELAB_INSTANCE when set", () => {
    expect(instanceId(env("postgresql://h/db", "lab-1"))).toBe("lab-1");
  });
});
