export * from "./registry";
