export * from "./experiments";
export * from "./presets";
export * from "./progress";
export * from "./export";
export * from "./report-html";
export * from "./quotas";
