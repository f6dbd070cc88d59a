import { TRunDefinition as TRunCreate } from "../../contract/definition";
import { SERVICE_ROLE } from "../../names";
import { growth } from "../figures";
import { ComponentModule } from "../types";
import { either, when } from "../form";
import { BROKER_KINDS, BrokerKind, TBroker, ZBroker } from "./config";

/**
 * The run's broker with its defaults: when the testbed's downstream work goes through one (async),
 * or beside a user's image that asks for one (its address comes in KAFKA_BROKERS or AMQP_URL).
 */
export function brokerOf(run: Pick<TRunCreate, "topology">): TBroker | undefined {
  const t = run.topology;
  if (t.service.kind === "image") return t.broker;
  return t.downstream.mode === "async" ? (t.broker ?? ZBroker.parse({})) : undefined;
}

/** The run's broker when it is of `kind`. */
export const brokerOfKind = (run: Pick<TRunCreate, "topology">, kind: BrokerKind): TBroker | undefined => {
  const b = brokerOf(run);
  return b?.kind === kind ? b : undefined;
};

/** The broker slot: its rule and its setup row; each kind plans its own container. */
export const broker: ComponentModule = {
  kind: "broker",
  slot: "broker",
  images: () => [],
  plan: () => [],
  roles: () => [],
  // A user's image reports no figures: what it produced is its own business.
  figures: (input, run): Record<string, number> =>
    brokerOf(run) && run.topology.service.kind !== "image"
      ? { "broker.produced": growth(input, SERVICE_ROLE, (s) => s.downstream.sent) }
      : {},
  // Every broker kind reports these: produced by the service replicas, consumed and lagging at the consumers.
  figureDefs: [
    { key: "broker.produced", label: "Produced", unit: "/s", kind: "rate", chart: "broker" },
    { key: "broker.consumed", label: "Consumed", unit: "/s", kind: "rate", chart: "broker" },
    { key: "broker.lag", label: "Consumer lag (events)", unit: "", kind: "gauge", chart: "broker" },
  ],
  rules: ({ topology: t }) =>
    t.broker && t.downstream.mode !== "async" && t.service.kind !== "image"
      ? [
          {
            path: ["topology", "broker"],
            message: "topology.broker applies only with topology.downstream.mode async (or beside a service of kind image)",
          },
        ]
      : [],
  form: {
    sections: [
      {
        key: "broker",
        order: 40,
        title: "Broker",
        hint: "Between the service and its consumers, or beside your image.",
        // The testbed's async hand-off needs one; a user's image may ask for one (not the testbed's downstream mode).
        when: either(
          [when("topology.service.kind", "testbed"), when("topology.downstream.mode", "async")],
          when("topology.service.kind", "image"),
        ),
        object: "topology.broker",
        optional: {
          label: "Run a broker beside your service (its address comes in KAFKA_BROKERS or AMQP_URL)",
          when: when("topology.service.kind", "image"),
        },
        fields: [
          { path: "topology.broker.kind", label: "Kind", options: {} },
          { path: "topology.broker.cpus", label: "CPU", placeholder: "unlimited", hint: "Empty = no limit." },
          { path: "topology.broker.memoryMb", label: "Memory (MB)" },
        ],
      },
    ],
  },
  setup: [
    {
      key: "broker",
      label: "Broker",
      // Runs stored before the broker's kind was recorded ran the first kind (Kafka) with 512 MB.
      show: ({ topology: t }) =>
        t.downstream.mode === "async" || (t.service.kind === "image" && t.broker)
          ? `${t.broker?.kind ?? BROKER_KINDS[0]}, ${t.broker?.cpus ?? "unlimited"} CPU, ${t.broker?.memoryMb ?? 512} MB`
          : "none",
    },
  ],
};
