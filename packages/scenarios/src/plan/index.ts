export * from "./plan";
export * from "./diagram";
export * from "../names";
export * from "./placement";
