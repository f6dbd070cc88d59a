export * from "./component";
export * from "./endpoints";
export * from "./k6/script";
export * from "./k6/events";
export * from "./wrk/wrk";
export * from "./merge";
export * from "./k6/user-script";
