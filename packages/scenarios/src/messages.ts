export * from "./contract/messages";
export * from "./contract/channels";
