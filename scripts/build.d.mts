/** Types of scripts/build.mjs for the TypeScript that imports it (tests, bench). */
export function ensureBuild(): Promise<string>;
