export * from "./stats";
export * from "./compare";
export * from "./findings";
export * from "./usl";
export * from "./fault-effects";
export * from "./interference";
export * from "./experiment-stats";
export * from "./experiment-report";
