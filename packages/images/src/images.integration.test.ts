import { randomUUID } from "node:crypto";
import net from "node:net";
import { PassThrough } from "node:stream";
import { connect } from "amqplib";
import Docker from "dockerode";
import { beforeAll, describe, expect, it } from "vitest";
import { env } from "./env";
import { DEPENDENCY_IMAGES, ensureControlPlaneImages, ensureImages, ensureLabImages, type ImageName, type ImageProgress } from "./index";

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
    const { NetworkSettings } = await container.inspect();
    // On a user-defined network the address is only listed under that network.
    const ip = NetworkSettings.IPAddress || Object.values(NetworkSettings.Networks)[0]?.IPAddress;
    expect(ip).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    await body(container, ip!);
  } finally {
    await container.remove({ force: true, v: true });
  }
}

/** A user-defined network (with Docker's DNS) for the test's containers, removed afterwards. */
async function withNetwork(body: (name: string) => Promise<void>) {
  const name = `sl-test-images-${randomUUID().slice(0, 8)}`;
  const network = await docker.createNetwork({ Name: name, Labels: runLabel() });
  try {
    await body(name);
  } finally {
    await network.remove();
  }
}

/** Container options that put it on `network` under `alias`, with the same host name. */
const onNetwork = (network: string, alias: string): Partial<Docker.ContainerCreateOptions> => ({
  Hostname: alias,
  HostConfig: { NetworkMode: network },
  NetworkingConfig: { EndpointsConfig: { [network]: { Aliases: [alias] } } },
});

/** Resolves with the first log line matching `pattern`; rejects with the log's tail on timeout or exit. */
async function waitForLog(container: Docker.Container, pattern: RegExp, timeoutMs: number): Promise<string> {
  const stream = (await container.logs({ follow: true, stdout: true, stderr: true })) as unknown as NodeJS.ReadableStream & {
    destroy(): void;
  };
  const output = new PassThrough();
  docker.modem.demuxStream(stream, output, output);
  let log = "";
  try {
    return await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no log line matched ${pattern} within ${timeoutMs} ms:\n${log.slice(-4000)}`)),
        timeoutMs,
      );
      output.on("data", (chunk: Buffer) => {
        log += chunk.toString();
        const line = log.split("\n").find((l) => pattern.test(l));
        if (line) {
          clearTimeout(timer);
          resolve(line);
        }
      });
      stream.on("end", () => {
        clearTimeout(timer);
        reject(new Error(`the container stopped before a log line matched ${pattern}:\n${log.slice(-4000)}`));
      });
    });
  } finally {
    stream.destroy();
  }
}

/** Memory use as `docker stats` shows it (usage minus page cache), in MiB. */
async function memoryMiB(container: Docker.Container): Promise<number> {
  const stats = await container.stats({ stream: false });
  const cache = (stats.memory_stats.stats as Record<string, number | undefined>).total_inactive_file ?? stats.memory_stats.stats.cache ?? 0;
  return Math.round((stats.memory_stats.usage - cache) / 2 ** 20);
}

/** Sends a CQL v4 OPTIONS frame and returns the response's opcode and body. */
function cqlOptions(ip: string): Promise<{ opcode: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(9042, ip, () => socket.write(Buffer.from([0x04, 0, 0, 0, 0x05, 0, 0, 0, 0])));
    socket.setTimeout(5_000, () => socket.destroy(new Error("no CQL response within 5 s")));
    let received = Buffer.alloc(0);
    socket.on("data", (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (received.length >= 9 && received.length >= 9 + received.readUInt32BE(5)) {
        resolve({ opcode: received[4]!, body: received.subarray(9).toString("latin1") });
        socket.destroy();
      }
    });
    socket.on("error", reject);
  });
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
    const [second, concurrent] = await Promise.all([ensureLabImages(docker, { onProgress: again.onProgress }), ensureLabImages(docker)]);
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
        await waitFor("the testbed to answer /health", 15_000, async () =>
          (await fetch(`http://${ip}:8080/health`)).ok ? true : undefined,
        );

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
      const reply = await waitFor(
        "Redis to answer PING",
        15_000,
        () =>
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

describe("dependency images (Kafka, Cassandra) on the real Docker engine", () => {
  it("builds both, reuses them on the second call, and runs them as their own users", async () => {
    const first = await ensureImages(docker, ["kafka", "cassandra"], { onProgress: recorder().onProgress });
    expect(first.kafka).toMatch(/^scalelab\/kafka:[0-9a-f]{12}$/);
    expect(first.cassandra).toMatch(/^scalelab\/cassandra:[0-9a-f]{12}$/);

    const again = recorder();
    expect(await ensureImages(docker, ["cassandra", "kafka"], { onProgress: again.onProgress })).toEqual(first);
    expect(again.summary()).toEqual({ base: ["cached"], cassandra: ["cached"], kafka: ["cached"] });

    for (const [tag, user] of [
      [first.kafka, "kafka"],
      [first.cassandra, "cassandra"],
    ] as const) {
      const image = await docker.getImage(tag).inspect();
      expect(image.Config.Labels?.["scalelab.image"]).toBe("true");
      expect(image.Config.User).toBe(user);
    }
  });

  it("refuses a heap or memory size that is not a whole number of MiB", async () => {
    const images = await ensureImages(docker, DEPENDENCY_IMAGES);
    for (const [image, variable] of [
      [images.kafka, "KAFKA_HEAP_MB"],
      [images.cassandra, "CASSANDRA_HEAP_MB"],
      [images.rabbitmq, "RABBITMQ_MEMORY_MB"],
    ] as const) {
      const container = await docker.createContainer({ Image: image, Env: [`${variable}=256m; echo x`], Labels: runLabel() });
      try {
        await container.start();
        expect((await container.wait()).StatusCode).toBe(64);
        const log = (await container.logs({ stdout: true, stderr: true })).toString();
        expect(log).toContain(`${variable} must be a positive whole number of MiB`);
      } finally {
        await container.remove({ force: true, v: true });
      }
    }
  });

  it("a Kafka broker becomes ready and creates and describes a topic for a real client", async () => {
    const { kafka } = await ensureImages(docker, ["kafka"]);
    await withNetwork((network) =>
      withContainer({ Image: kafka, Env: ["KAFKA_HEAP_MB=256"], ...onNetwork(network, "kafka") }, async (container) => {
        const started = Date.now();
        await waitForLog(container, /\[KafkaRaftServer nodeId=1\] Kafka Server started/, 90_000);
        console.log(
          `kafka: ready ${((Date.now() - started) / 1000).toFixed(1)} s after start, ${await memoryMiB(container)} MiB in use then`,
        );

        const topics = [
          "java",
          "-Xmx64m",
          "-cp",
          "/opt/kafka/lib/*",
          "org.apache.kafka.tools.TopicCommand",
          "--bootstrap-server",
          "localhost:29092",
        ];
        const created = await execIn(container, [...topics, "--create", "--topic", "t", "--partitions", "2"]);
        expect(created.output).toContain("Created topic t.");
        expect(created.exitCode).toBe(0);
        const described = await execIn(container, [...topics, "--describe", "--topic", "t"]);
        expect(described.exitCode).toBe(0);
        expect(described.output).toMatch(/PartitionCount: 2\s+ReplicationFactor: 1/);
        expect(described.output.match(/Partition: [01]\s+Leader: 1\s+Replicas: 1\s+Isr: 1/g)).toHaveLength(2);
        expect((await execIn(container, ["stat", "-c", "%U", "/proc/1"])).output.trim()).toBe("kafka");
      }),
    );
  });

  it("a Cassandra node becomes ready and answers a CQL OPTIONS request on 9042", async () => {
    const { cassandra } = await ensureImages(docker, ["cassandra"]);
    await withNetwork((network) =>
      withContainer({ Image: cassandra, ...onNetwork(network, "cassandra") }, async (container, ip) => {
        const started = Date.now();
        await waitForLog(container, /Starting listening for CQL clients on /, 120_000);
        const ready = ((Date.now() - started) / 1000).toFixed(1);
        // The line is logged just before the port is bound.
        const reply = await waitFor("Cassandra to answer on 9042", 10_000, () => cqlOptions(ip));
        expect(reply.opcode).toBe(0x06); // SUPPORTED
        expect(reply.body).toContain("CQL_VERSION");
        console.log(`cassandra: ready ${ready} s after start, ${await memoryMiB(container)} MiB in use then`);
        expect((await execIn(container, ["stat", "-c", "%U", "/proc/1"])).output.trim()).toBe("cassandra");
      }),
    );
  });
});

type TestbedStats = {
  requests: number;
  downstream: { mode: string; sent: number; errors: number };
  consumed: number;
  consumeErrors: number;
};
const testbedStats = async (ip: string): Promise<TestbedStats> => (await fetch(`http://${ip}:8080/stats`)).json() as Promise<TestbedStats>;

/** Resolves once a TCP connection to ip:port is accepted. */
const tcpOpen = (ip: string, port: number) =>
  new Promise<true>((resolve, reject) => {
    const socket = net.connect(port, ip, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on("error", reject);
  });

describe("RabbitMQ on the real Docker engine", () => {
  const MiB = 2 ** 20;

  it("a node under a 512 MiB limit sizes itself for it and takes a declare, a confirmed publish and a get from a real client", async () => {
    const { rabbitmq } = await ensureImages(docker, ["rabbitmq"]);
    expect(rabbitmq).toMatch(/^scalelab\/rabbitmq:[0-9a-f]{12}$/);
    const image = await docker.getImage(rabbitmq).inspect();
    expect(image.Config.Labels?.["scalelab.image"]).toBe("true");
    expect(image.Config.User).toBe("rabbitmq");

    await withNetwork((network) => {
      const placement = onNetwork(network, "broker");
      return withContainer(
        { Image: rabbitmq, ...placement, HostConfig: { ...placement.HostConfig, Memory: 512 * MiB } },
        async (container, ip) => {
          const started = Date.now();
          await waitForLog(container, /Server startup complete/, 90_000);
          const ready = ((Date.now() - started) / 1000).toFixed(1);
          await waitFor("RabbitMQ to accept connections on 5672", 10_000, () => tcpOpen(ip, 5672));
          console.log(`rabbitmq: ready ${ready} s after start, ${await memoryMiB(container)} MiB in use then`);
          const log = (await container.logs({ stdout: true, stderr: true })).toString();
          expect(log).toContain("rabbitmq-entrypoint: sized for 512 MiB (the container's memory limit)");
          // Half of the container's memory, not of the host's.
          expect(log).toMatch(/Memory high watermark set to 256 MiB \(\d+ bytes\) of 512 MiB/);
          expect(log).toMatch(/Disk free limit set to 32MB/);
          expect((await execIn(container, ["stat", "-c", "%U", "/proc/1"])).output.trim()).toBe("rabbitmq");
          expect((await execIn(container, ["stat", "-c", "%a %U", "/var/lib/rabbitmq/.erlang.cookie"])).output.trim()).toBe("400 rabbitmq");

          // guest is not created; the lab's user may connect from another host.
          await expect(connect(`amqp://guest:guest@${ip}:5672/`)).rejects.toThrow();
          const conn = await connect(`amqp://lab:lab@${ip}:5672/`);
          try {
            const ch = await conn.createConfirmChannel();
            expect(await ch.assertQueue("events", { durable: true })).toMatchObject({ queue: "events", messageCount: 0 });
            const body = JSON.stringify({ payload: "x".repeat(100) });
            ch.sendToQueue("events", Buffer.from(body), { persistent: true, contentType: "application/json" });
            await ch.waitForConfirms();
            const message = await waitFor(
              "the message to be queued",
              5_000,
              async () => (await ch.get("events", { noAck: false })) || undefined,
            );
            expect(message.content.toString()).toBe(body);
            expect(message.properties.deliveryMode).toBe(2);
            ch.ack(message);
            expect((await ch.checkQueue("events")).messageCount).toBe(0);
            await ch.close();
          } finally {
            await conn.close();
          }
          console.log(`rabbitmq: ${await memoryMiB(container)} MiB in use after the client`);
        },
      );
    });
  });

  it("the testbed's service publishes to it and its consumers work the events off, through a restart of the broker", async () => {
    const { rabbitmq, testbed } = await ensureImages(docker, ["rabbitmq", "testbed"]);
    await withNetwork(async (name) => {
      // The testbed's defaults: amqp://lab:lab@rabbitmq:5672/, queue "events".
      const role = (alias: string, env: string[]): Docker.ContainerCreateOptions => ({
        Image: testbed,
        Env: ["TESTBED_BROKER=rabbitmq", ...env],
        ...onNetwork(name, alias),
      });
      await withContainer(role("app", ["TESTBED_DOWNSTREAM=async"]), (_svc, app) =>
        withContainer(role("consumer", ["TESTBED_ROLE=consumer", "TESTBED_DOWNSTREAM_CPU_ITERATIONS=10"]), async (_cons, consumer) => {
          // No broker yet: both wait for it, and the service refuses work it cannot hand on.
          for (const ip of [app, consumer]) {
            const health = await waitFor("the testbed to answer /health", 15_000, async () => fetch(`http://${ip}:8080/health`));
            expect(health.status).toBe(503);
            expect(await health.json()).toEqual({ status: "starting", waiting: ["rabbitmq"] });
          }
          expect((await fetch(`http://${app}:8080/`)).status).toBe(503);

          const placement = onNetwork(name, "rabbitmq");
          await withContainer(
            { Image: rabbitmq, Env: ["RABBITMQ_MEMORY_MB=384"], ...placement, HostConfig: { ...placement.HostConfig, Memory: 512 * MiB } },
            async (broker) => {
              await waitForLog(broker, /Server startup complete/, 90_000);
              const log = (await broker.logs({ stdout: true, stderr: true })).toString();
              expect(log).toContain("sized for 384 MiB (RABBITMQ_MEMORY_MB)");
              expect(log).toMatch(/Memory high watermark set to 192 MiB \(\d+ bytes\) of 384 MiB/);
              for (const ip of [app, consumer]) {
                await waitFor("the testbed to connect to RabbitMQ", 20_000, async () =>
                  (await fetch(`http://${ip}:8080/health`)).ok ? true : undefined,
                );
              }

              const load = async (n: number) => {
                const codes = await Promise.all(Array.from({ length: n }, async () => (await fetch(`http://${app}:8080/`)).status));
                return codes.filter((c) => c === 200).length;
              };
              expect(await load(200)).toBe(200);
              await waitFor("200 events confirmed and consumed", 20_000, async () => {
                const [s, c] = await Promise.all([testbedStats(app), testbedStats(consumer)]);
                return s.downstream.sent === 200 && c.consumed === 200 ? true : undefined;
              });
              expect((await testbedStats(app)).downstream).toEqual({ mode: "async", sent: 200, errors: 0 });

              // A graceful stop closes the connections: the service fails its hand-offs at once.
              await broker.stop({ t: 10 });
              await waitFor("the service to answer 502", 5_000, async () =>
                (await fetch(`http://${app}:8080/`)).status === 502 ? true : undefined,
              );
              const restarted = Date.now();
              await broker.start();
              await waitFor("the service to publish again", 60_000, async () =>
                (await fetch(`http://${app}:8080/`)).ok ? true : undefined,
              );
              console.log(
                `rabbitmq: the service published again ${((Date.now() - restarted) / 1000).toFixed(1)} s after the broker's start`,
              );

              const before = await testbedStats(app);
              expect(await load(100)).toBe(100);
              const done = await waitFor("the consumer to catch up after the restart", 30_000, async () => {
                const [s, c] = await Promise.all([testbedStats(app), testbedStats(consumer)]);
                return s.downstream.sent >= before.downstream.sent + 100 && c.consumed >= s.downstream.sent ? { s, c } : undefined;
              });
              expect(done.s.downstream.errors).toBeGreaterThanOrEqual(1);
              expect(done.c.consumeErrors).toBeGreaterThanOrEqual(1); // the lost connection
              console.log(
                `rabbitmq: after the restart sent ${done.s.downstream.sent} (errors ${done.s.downstream.errors}), consumed ${done.c.consumed}, ${await memoryMiB(broker)} MiB in use`,
              );
            },
          );
        }),
      );
    });
  });
});
