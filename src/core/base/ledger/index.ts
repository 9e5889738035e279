export * from "./ledger";
export * from "./estimates";
export * from "./workspace-spend";
