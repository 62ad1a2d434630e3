// Public surface of the structural filter stage; everything else in this folder is internal.
export { StructuralFilter } from "./filter.js";
export type { CustomPattern } from "./custom.js";
export * as StructuralReasons from "./labels.js";
