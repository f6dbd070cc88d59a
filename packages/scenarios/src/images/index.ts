export * from "./reference";
export * from "./list";
export * from "./build-output";
export * from "./context";
