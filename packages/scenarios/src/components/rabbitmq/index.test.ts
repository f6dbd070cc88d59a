import { describe, expect, it } from "vitest";
import { ZRunCreate, TRunCreateInput } from "../../contract/run";
import { buildPlan, previewFiles } from "../../plan/plan";
import { topologyDiagram } from "../../plan/diagram";
import { LAB_IMAGES } from "../types";
import { requiredImages } from "../../plan/plan";
import { setupRows } from "../../analysis/compare";

const images = Object.fromEntries(LAB_IMAGES.map((i) => [i, `scalelab/${i}:test`]));
const input = (broker: "kafka" | "rabbitmq"): TRunCreateInput => ({
  topology: {
    service: { replicas: 2, cpus: 0.2 },
    downstream: { mode: "async", replicas: 3, cpus: 0.2 },
    broker: { kind: broker, cpus: 1, memoryMb: 640 },
  },
  workload: { endpoint: "cpu", vus: 1 },
});
const planOf = (broker: "kafka" | "rabbitmq") => buildPlan({ runId: "cm3x9k2abc0001", run: ZRunCreate.parse(input(broker)), images });

describe("RabbitMQ as the broker", () => {
  it("plans one node with the broker's limits instead of Kafka, built only when used", () => {
    const plan = planOf("rabbitmq");
    const node = plan.containers.find((c) => c.role === "rabbitmq")!;
    expect(node).toMatchObject({ image: "scalelab/rabbitmq:test", hostname: "rabbitmq", cpus: 1, memoryBytes: 640 * 1024 * 1024, tier: 0 });
    expect(node.ready).toEqual([
      { kind: "log", pattern: "Server startup complete" },
      { kind: "tcp", port: 5672 },
    ]);
    expect(plan.containers.some((c) => c.role === "kafka")).toBe(false);
    expect(requiredImages(ZRunCreate.parse(input("rabbitmq")))).toContain("rabbitmq");
    expect(requiredImages(ZRunCreate.parse(input("rabbitmq")))).not.toContain("kafka");
    expect(requiredImages(ZRunCreate.parse(input("kafka")))).not.toContain("rabbitmq");
  });

  it("gives the service and the consumers its address and queue, and none of Kafka's", () => {
    const plan = planOf("rabbitmq");
    for (const role of ["app", "consumer"]) {
      for (const c of plan.containers.filter((x) => x.role === role)) {
        expect(c.env).toMatchObject({
          TESTBED_BROKER: "rabbitmq",
          TESTBED_AMQP_URL: "amqp://lab:lab@rabbitmq:5672/",
          TESTBED_AMQP_QUEUE: "events",
        });
        expect(Object.keys(c.env).filter((k) => k.startsWith("TESTBED_KAFKA_"))).toEqual([]);
      }
    }
    const kafka = planOf("kafka");
    expect(kafka.containers.find((c) => c.role === "app")!.env).toMatchObject({
      TESTBED_BROKER: "kafka",
      TESTBED_KAFKA_BROKERS: "kafka:29092",
    });
  });

  it("is drawn between the replicas and the consumers, and named in the setup", () => {
    const plan = planOf("rabbitmq");
    const d = topologyDiagram(plan);
    const broker = d.nodes.find((n) => n.role === "rabbitmq")!;
    expect(broker.label).toBe("RabbitMQ broker");
    const async = d.edges.filter((e) => e.kind === "async");
    expect(async.filter((e) => e.to === broker.id)).toHaveLength(2);
    expect(async.filter((e) => e.from === broker.id)).toHaveLength(3);
    expect(previewFiles(plan).map((f) => f.title)).not.toContain("server.properties");
    const rows = setupRows([ZRunCreate.parse(input("kafka")), ZRunCreate.parse(input("rabbitmq"))]);
    expect(rows.find((r) => r.key === "broker")).toMatchObject({
      values: ["kafka, 1 CPU, 640 MB", "rabbitmq, 1 CPU, 640 MB"],
      differs: true,
    });
  });
});
