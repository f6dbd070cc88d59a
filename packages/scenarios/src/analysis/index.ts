export * from "./stats";
export * from "./compare";
export * from "./findings";
export * from "./usl";
export * from "./fault-effects";
export * from "./experiment-stats";
export * from "./experiment-report";
