// What the apps need of the components: the registry and its folds, the component types, the
// figures, and the few kind facts the worker and the web use directly (HAProxy's stats CSV, the
// testbed's stats format and gRPC method, toxiproxy's toxics, the seeded rows, the slots' configs).
// A new kind needs no line here.
export * from "./registry";
export * from "./types";
export * from "./figures";
export * from "./ports";
export * from "./form";
export * from "../names";
export * from "./slots";
export * from "./balancer/config";
export * from "./service/config";
export * from "./downstream/config";
export * from "./broker/config";
export * from "./storage/config";
export * from "./service/testbed-stats";
export * from "./service/grpc";
export * from "./service/hotkey";
export * from "./cache/config";
export * from "./haproxy/stats";
export * from "./fault-proxy";
export * from "./storage";
export * from "./storage/statements";
