import { randomUUID } from "node:crypto";
import net from "node:net";
import { PassThrough } from "node:stream";
import Docker from "dockerode";
import { beforeAll, describe, expect, it } from "vitest";
import { env } from "./env";
import { ensureControlPlaneImages, ensureLabImages, type ImageName, type ImageProgress } from "./index";

const docker = new Docker({ socketPath: env.dockerSocket });
const runLabel = () => ({ "scalelab.managed": "true", "scalelab.run": `test-images-${randomUUID().slice(0, 8)}` });

function recorder() {
  const phases = new Map<ImageName, Set<ImageProgress["phase"]>>();
  const onProgress = (p: ImageProgress) => {
    if (!phases.has(p.image)) phases.set(p.image, new Set());
    phases.get(p.image)!.add(p.phase);
    console.log(`${p.image} ${p.phase}${p.step ? ` ${p.step}/${p.totalSteps}` : ""} ${p.message}`);
  };
  const summary = () => Object.fromEntries([...phases].map(([image, set]) => [image, [...set]]));
  return { onProgress, summary };
}

async function waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ""}`);
}

async function withContainer(options: Docker.ContainerCreateOptions, body: (c: Docker.Container, ip: string) => Promise<void>) {
  const container = await docker.createContainer({ ...options, Labels: { ...options.Labels, ...runLabel() } });
  try {
    await container.start();
    const ip = (await container.inspect()).NetworkSettings.IPAddress;
    expect(ip).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    await body(container, ip);
  } finally {
    await container.remove({ force: true, v: true });
  }
}

async function execIn(container: Docker.Container, cmd: string[]): Promise<{ exitCode: number | null; output: string }> {
  const exec = await container.exec({ Cmd: cmd, AttachStdout: true, AttachStderr: true });
  const stream = await exec.start({});
  const output = new PassThrough();
  const chunks: Buffer[] = [];
  output.on("data", (c: Buffer) => chunks.push(c));
  docker.modem.demuxStream(stream, output, output);
  await new Promise((resolve) => stream.on("end", resolve));
  return { exitCode: (await exec.inspect()).ExitCode, output: Buffer.concat(chunks).toString() };
}

beforeAll(async () => {
  await docker.ping().catch((err: Error) => {
    throw new Error(`Docker is not reachable at ${env.dockerSocket}: ${err.message}`);
  });
});

describe("lab images on the real Docker engine", () => {
  it("builds once, reuses on the second call and runs the testbed under a CPU limit", async () => {
    const first = await ensureLabImages(docker, { onProgress: recorder().onProgress });
    expect(first.testbed).toMatch(/^scalelab\/testbed:[0-9a-f]{12}$/);

    const again = recorder();
    const [second, concurrent] = await Promise.all([
      ensureLabImages(docker, { onProgress: again.onProgress }),
      ensureLabImages(docker),
    ]);
    expect(second).toEqual(first);
    expect(concurrent).toEqual(first);
    expect(again.summary()).toEqual({ base: ["cached"], testbed: ["cached"], nginx: ["cached"], k6: ["cached"] });

    for (const tag of [first.testbed, first.nginx, first.k6]) {
      expect((await docker.getImage(tag).inspect()).Config.Labels?.["scalelab.image"]).toBe("true");
    }

    await withContainer(
      { Image: first.testbed, Env: ["TESTBED_CPU_ITERATIONS=20"], HostConfig: { NanoCpus: 200_000_000 } },
      async (container, ip) => {
        const hostname = (await container.inspect()).Config.Hostname;
        await waitFor("the testbed to answer /health", 15_000, async () => ((await fetch(`http://${ip}:8080/health`)).ok ? true : undefined));

        const res = await fetch(`http://${ip}:8080/cpu?n=500`);
        expect(res.status).toBe(200);
        expect(res.headers.get("x-backend")).toBe(hostname);
        expect(await res.json()).toEqual({ hostname, iterations: 500 });

        const bad = await fetch(`http://${ip}:8080/cpu?n=0`);
        expect(bad.status).toBe(400);
        expect(bad.headers.get("x-backend")).toBe(hostname);

        const health = await waitFor("Docker to report the container healthy", 30_000, async () => {
          const status = (await container.inspect()).State.Health?.Status;
          return status === "healthy" ? status : undefined;
        });
        expect(health).toBe("healthy");
        expect((await container.inspect()).HostConfig.NanoCpus).toBe(200_000_000);
      },
    );
  });

  it("builds the control-plane images; Postgres takes password logins over TCP, Redis answers", async () => {
    const images = await ensureControlPlaneImages(docker);
    const again = recorder();
    expect(await ensureControlPlaneImages(docker, { onProgress: again.onProgress })).toEqual(images);
    expect(again.summary()).toEqual({ base: ["cached"], postgres: ["cached"], redis: ["cached"] });

    await withContainer(
      { Image: images.postgres, Env: ["POSTGRES_USER=lab", "POSTGRES_PASSWORD=s3cret-'pw", "POSTGRES_DB=scalelab"] },
      async (container) => {
        const url = "postgresql://lab:s3cret-'pw@127.0.0.1:5432/scalelab";
        const result = await waitFor("Postgres to accept a password login over TCP", 60_000, async () => {
          const r = await execIn(container, ["psql", url, "-tAc", "select current_user || '@' || current_database()"]);
          return r.exitCode === 0 ? r.output : undefined;
        });
        expect(result).toContain("lab@scalelab");
        const wrong = await execIn(container, ["psql", "postgresql://lab:wrong@127.0.0.1:5432/scalelab", "-c", "select 1"]);
        expect(wrong.exitCode).not.toBe(0);
        expect((await execIn(container, ["stat", "-c", "%U", "/proc/1"])).output.trim()).toBe("postgres");
      },
    );

    await withContainer({ Image: images.redis }, async (_container, ip) => {
      const reply = await waitFor("Redis to answer PING", 15_000, () =>
        new Promise<string | undefined>((resolve, reject) => {
          const socket = net.connect(6379, ip, () => socket.write("PING\r\n"));
          socket.once("data", (d) => {
            socket.end();
            resolve(d.toString());
          });
          socket.once("error", reject);
        }),
      );
      expect(reply).toBe("+PONG\r\n");
    });
  });
});
