import { randomBytes } from "node:crypto";
import { ensureImages } from "@scalelab/images";
import { TRunCreateInput } from "@scalelab/scenarios/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useLabWorker } from "./testing/lab";

/*
 * A user's image whose replica never answers 2xx on its health path fails the run when the
 * readiness deadline passes, naming the path, the last answer and the replica's last output. Its
 * own worker with a short deadline: the testbed (playing the user's image) is up in a second, and
 * the case waits the whole deadline out.
 */
const HEALTHY_MS = 12_000;
const ctx = useLabWorker("user-image-unready", { timeouts: { healthyMs: HEALTHY_MS } });

const suffix = randomBytes(4).toString("hex");
const USER_IMAGE = `scalelab-it/unready:${suffix}`;

beforeAll(async () => {
  const { testbed } = await ensureImages(ctx.docker, ["testbed"]);
  await ctx.docker.getImage(testbed!).tag({ repo: "scalelab-it/unready", tag: suffix });
});

afterAll(async () => {
  await ctx.docker.getImage(USER_IMAGE).remove({ noprune: true });
});

describe("a user's image that never becomes ready", () => {
  it("fails the run when a replica never answers 2xx on its health path, naming the path and the last answer", async () => {
    const id = await ctx.lab.createRun({
      name: "user image: never healthy",
      topology: {
        balancer: { kind: "nginx" },
        service: { kind: "image", image: USER_IMAGE, replicas: 1, cpus: 0.25, memoryMb: 64, healthPath: "/nope" },
      },
      workload: { request: { path: "/cpu" }, vus: 4, durationSeconds: 5, loadgenCpus: 0.5 },
    } as TRunCreateInput);
    const row = await ctx.lab.finished(id);
    expect(row.status).toBe("failed");
    expect(await ctx.lab.leftovers(id)).toEqual([]);
    expect(row.error).toMatch(
      new RegExp(
        `^replica app-0 \\(scalelab-it/unready:\\w+\\) \\(sl-\\w+-app-0\\) not ready after ${HEALTHY_MS / 1000} s: GET :8080/nope did not pass \\(last answer: HTTP 404 \\{"error":"not found"\\}\\); last output:\\n.*testbed service listening on :8080`,
      ),
    );
  });
});
