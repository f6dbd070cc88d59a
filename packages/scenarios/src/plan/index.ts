export * from "./plan";
export * from "./diagram";
