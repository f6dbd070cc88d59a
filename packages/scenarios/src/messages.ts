export * from "./contract/messages";
