// A zod schema compiled to a plain predicate over a parsed JSON value, for the checks that run once
// per record on a large pair (verify reads millions). zod builds an output object and an issue list
// for every value it parses; the predicate builds nothing. It answers true only when zod would
// accept the value, and when it hands no node to zod (below), zod would also return the value
// unchanged: so a value it accepts needs no zod parse at all, and a value it refuses is parsed by
// zod, which names the issue exactly as before. So a caller cannot tell which one ran, except by
// the time taken.
//
// Why the two agree: each node below does what zod 4 does for that node (the same type tests, the
// same `for...in` walk of a strict object's keys, the same reads of `value[key]`, the same checks in
// the same terms), and a node of any other kind, or with any check it does not know, is handed to
// zod itself (`schema.safeParse(value).success`), so the answer is never a guess. A test compares
// the two over genuine and damaged records.
import type { z } from "zod";
import { codePointLength } from "./codepoints.js";

/** True only when the schema accepts the value (and returns it unchanged, when no node was handed to zod). */
type ValueCheck = (value: unknown) => boolean;

/** A zod schema with its compiled predicate, asked in the two ways verify asks a schema. */
export interface CompiledSchema<S extends z.ZodType> {
  /** The predicate alone: true only when the schema accepts the value (see the file's head). */
  readonly check: ValueCheck;
  /** Node kinds handed to zod, one entry per node; tests require none for a manifest record's schema. */
  readonly delegated: readonly string[];
  /** `schema.safeParse(value).success`, zod parsing only a value the predicate refuses. */
  accepts(value: unknown): boolean;
  /**
   * `schema.safeParse(value)`, answered without parsing when the predicate accepts the value: then
   * `data` is the value itself (zod's output would be an equal copy). When any node was handed to
   * zod, zod parses every value, since such a node may copy what it accepts.
   */
  safeParse(value: unknown): z.ZodSafeParseResult<z.output<S>>;
}

// zod 4 keeps a schema's definition under `_zod.def`; only the fields read here are typed.
interface Def {
  readonly type: string;
  readonly checks?: ReadonlyArray<{ readonly _zod: { readonly def: CheckDef } }>;
  readonly format?: string;
  readonly shape?: Readonly<Record<string, Node>>;
  readonly catchall?: Node;
  readonly element?: Node;
  readonly innerType?: Node;
  readonly options?: readonly Node[];
  readonly values?: readonly unknown[];
  readonly entries?: Readonly<Record<string, unknown>>;
}
interface CheckDef {
  readonly check: string;
  readonly type?: string;
  readonly fn?: (value: unknown) => unknown;
  readonly when?: unknown;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly value?: number;
  readonly inclusive?: boolean;
  readonly format?: string;
  readonly pattern?: RegExp;
}
interface Node {
  readonly _zod: { readonly def: Def };
  safeParse(value: unknown): { readonly success: boolean };
}

/** Compiles `schema` (see the file's head); throws nothing: what it cannot compile, zod checks. */
export function compileCheck<S extends z.ZodType>(schema: S): CompiledSchema<S> {
  const delegated: string[] = [];
  const check = compileNode(schema as unknown as Node, delegated);
  // A node handed to zod may copy what it accepts (a pipe, a record), so a value is then not zod's output.
  const identical = delegated.length === 0;
  return {
    check,
    delegated,
    accepts: (value) => check(value) || schema.safeParse(value).success,
    safeParse: (value) =>
      identical && check(value) ? ({ success: true, data: value as z.output<S> } as z.ZodSafeParseResult<z.output<S>>) : schema.safeParse(value),
  };
}

function compileNode(node: Node, delegated: string[]): ValueCheck {
  const def = node._zod.def;
  const base = compileType(def, delegated);
  if (base === null) return handOver(node, def.type, delegated);
  const checks = (def.checks ?? []).map((c) => compileRule(c._zod.def, def.type));
  if (checks.some((c) => c === null)) return handOver(node, `${def.type} check`, delegated);
  const rules = checks as ValueCheck[];
  if (rules.length === 0) return base;
  return (value) => {
    if (!base(value)) return false;
    for (const rule of rules) if (!rule(value)) return false;
    return true;
  };
}

/** The node checked by zod itself (recorded in `delegated`). */
function handOver(node: Node, kind: string, delegated: string[]): ValueCheck {
  delegated.push(kind);
  return (value) => node.safeParse(value).success;
}

/** zod's own type test of a node and of its children, or null for a kind compiled here not at all. */
function compileType(def: Def, delegated: string[]): ValueCheck | null {
  switch (def.type) {
    case "string":
      // A string format (email, uuid, ...) is a check of its own kind: zod checks it.
      return def.format === undefined ? (v) => typeof v === "string" : null;
    case "number":
      // zod 4 refuses NaN and ±Infinity for every number; `z.int()` is the safe-integer format.
      if (def.format === "safeint") return (v) => typeof v === "number" && Number.isSafeInteger(v);
      return def.format === undefined ? (v) => typeof v === "number" && Number.isFinite(v) : null;
    case "boolean":
      return (v) => typeof v === "boolean";
    case "null":
      return (v) => v === null;
    case "literal": {
      const values = new Set(def.values ?? []);
      return (v) => values.has(v);
    }
    case "enum": {
      const entries = Object.values(def.entries ?? {});
      // A numeric enum's entries hold reverse mappings too: zod checks it.
      if (!entries.every((entry) => typeof entry === "string")) return null;
      const values = new Set<unknown>(entries);
      return (v) => values.has(v);
    }
    case "optional":
      return compileWrapped(def, delegated, (v) => v === undefined);
    case "nullable":
      return compileWrapped(def, delegated, (v) => v === null);
    case "array": {
      if (def.element === undefined) return null;
      const element = compileNode(def.element, delegated);
      return (v) => {
        if (!Array.isArray(v)) return false;
        for (let i = 0; i < v.length; i++) if (!element(v[i])) return false;
        return true;
      };
    }
    case "union": {
      const options = (def.options ?? []).map((o) => compileNode(o, delegated));
      return options.length === 0 ? null : (v) => options.some((option) => option(v));
    }
    case "object":
      return compileStrictObject(def, delegated);
    default:
      return null;
  }
}

function compileWrapped(def: Def, delegated: string[], accepts: (v: unknown) => boolean): ValueCheck | null {
  if (def.innerType === undefined) return null;
  const inner = compileNode(def.innerType, delegated);
  return (v) => accepts(v) || inner(v);
}

/**
 * A strict object (unknown keys refused), as zod walks it: each declared key read as `value[key]`
 * and checked (an absent one as `undefined`), then every key `for...in` yields must be declared.
 * A non-strict object copies only its declared keys, so its output differs: zod checks it.
 */
function compileStrictObject(def: Def, delegated: string[]): ValueCheck | null {
  if (def.shape === undefined || def.catchall?._zod.def.type !== "never") return null;
  const shape = def.shape;
  // A declared key that objects inherit (`toString`) would be read from the prototype: zod checks it.
  if (Object.keys(shape).some((key) => key in Object.prototype || key === "__proto__")) return null;
  const keys = Object.keys(shape);
  const checks = keys.map((key) => compileNode(shape[key] as Node, delegated));
  const declared = new Set(keys);
  return (v) => {
    if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
    const record = v as Record<string, unknown>;
    for (let i = 0; i < keys.length; i++) if (!(checks[i] as ValueCheck)(record[keys[i] as string])) return false;
    for (const key in record) if (!declared.has(key)) return false;
    return true;
  };
}

/** One of a node's checks in zod's terms, or null for one compiled here not at all. */
function compileRule(rule: CheckDef, type: string): ValueCheck | null {
  // A length check applies to whatever has a length (zod's default `when`); any other `when` is zod's.
  // zod measures a string in code points (a pair of surrogates is one, a lone one is one too, as
  // codePointLength counts), an array in elements.
  // A string of n UTF-16 units holds from ceil(n / 2) to n code points, so most bounds are decided
  // by its unit count alone, and only a length between those is counted (a scan of the string).
  const defaultWhen = rule.when === undefined || (typeof rule.when === "function" && rule.when.name === "_whenHasLength");
  switch (rule.check) {
    case "min_length": {
      const min = rule.minimum;
      if (min === undefined || !defaultWhen || (type !== "string" && type !== "array")) return null;
      if (type === "array") return (v) => (v as unknown[]).length >= min;
      return (v) => ((v as string).length + 1) >> 1 >= min || codePointLength(v as string) >= min;
    }
    case "max_length": {
      const max = rule.maximum;
      if (max === undefined || !defaultWhen || (type !== "string" && type !== "array")) return null;
      if (type === "array") return (v) => (v as unknown[]).length <= max;
      return (v) => (v as string).length <= max || codePointLength(v as string) <= max;
    }
    case "greater_than": {
      const bound = rule.value;
      if (type !== "number" || typeof bound !== "number") return null;
      return rule.inclusive === true ? (v) => (v as number) >= bound : (v) => (v as number) > bound;
    }
    case "less_than": {
      const bound = rule.value;
      if (type !== "number" || typeof bound !== "number") return null;
      return rule.inclusive === true ? (v) => (v as number) <= bound : (v) => (v as number) < bound;
    }
    case "number_format":
      // `.int()` on a number: the safe-integer format, as `z.int()` is.
      return type === "number" && rule.format === "safeint" ? (v) => Number.isSafeInteger(v) : null;
    case "string_format": {
      const pattern = rule.pattern;
      if (type !== "string" || rule.format !== "regex" || !(pattern instanceof RegExp)) return null;
      return (v) => {
        pattern.lastIndex = 0;
        return pattern.test(v as string);
      };
    }
    case "custom": {
      // A refinement: zod calls it with the checked value, which here is the value itself. Only a
      // plain `true` counts, so an asynchronous refinement (a promise) is never taken as passed.
      const fn = rule.fn;
      if (typeof fn !== "function" || rule.when !== undefined) return null;
      return (v) => fn(v) === true;
    }
    default:
      return null;
  }
}
