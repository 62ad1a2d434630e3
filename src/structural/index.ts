// Public surface of the structural filter stage; everything else in this folder is internal.
export { StructuralFilter, DEFAULT_MAX_INPUT_LENGTH } from "./filter.js";
export type { FilterResult, StructuralFilterOptions } from "./filter.js";
export type { CustomPattern } from "./custom.js";
export type { MatchLocation, StructuralMatch } from "./locate.js";
export type { EncodingKind } from "./labels.js";
export * as StructuralReasons from "./labels.js";
