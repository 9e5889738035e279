export const NODE_BUNDLE: Readonly<{ bundle: true; platform: "node"; target: "node20"; format: "cjs" }>;
export const NODE_EXTERNAL: readonly string[];
