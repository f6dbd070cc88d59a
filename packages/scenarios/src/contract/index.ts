export * from "./run";
export * from "./fields";
export * from "./faults";
export * from "./latency";
export * from "./backends";
export * from "./host";
export * from "./form";
export * from "./labels";
