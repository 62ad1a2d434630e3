// `npm run graph:options`: how a run's options walk the house (issue 27's targets; the figures
// are in docs/architecture.md, "How a run's options walk the house"). For `ingest` and `check` it
// follows the flags from `run(…, flags, …)` in cli/commands/<name>.ts through the calls that carry
// them, as a call tree (caller function → callee function, with file and folder, in the order the
// walk follows them), and prints the rooms entered, the climbs, the stage sequence and the returns.
//
// Static, so it needs no canary, no input and no build of the library, and one tree always gives
// the same figures. With the TypeScript type checker it walks, in source order, the bodies of the
// functions the options reach:
// - "the options" are the flags and every value computed from them: a variable initialised or
//   assigned from an expression that mentions them, a property assigned from them
//   (`this.limits = plan.limits`), a parameter bound to such an argument, the result of a call the
//   walk followed or of a library call given them (`Object.freeze(plan)`), and a closure that
//   captures them. The result of calling a method of something built from them (`pipeline.check`)
//   is that component's own output, not the options;
// - a call that hands on an object of the options (not a string or number read from them) is an
//   edge to its callee when that has a body in src/ or cli/; the callee's body is walked at its
//   first call only. A callback handed to a library function (`map`) is walked there and then; a
//   closure handed to our own code (`pipeline: (policy) => …`, a hook) is walked when the walk
//   calls a name our code declares with that name (`options.pipeline(policy)`, not `Map.get`), as
//   an edge to where the closure's body is.
// Both branches of an `if` and one pass of a loop are walked: the walk is what the code can do,
// not what one input makes it do. Not followed: calls through an interface (dynamic dispatch),
// methods called on a component built from the options, getters and field initialisers.
//
// A climb is an edge from a function to one in a folder of a higher layer (the "Layer" column of
// the table in docs/architecture.md, `cli` on top): a stage calling a CLI hook, a closure handed
// down and called from below; calling down and getting the answer back is not one. A stage folder
// is entered by an edge into it from another folder; the stage sequence is those entries in walk
// order, consecutive repeats collapsed, and a return is an entry into a stage folder already in it.
// "Each stage once, in order" holds when the sequence is exactly the command's stage list.
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";
import { folderOf, parseLayers } from "./import-graph.js";

const ROOT = new URL("../../", import.meta.url).pathname;

/** One command to measure: its entry, the parameter that holds its options, and its stage folders in pipeline order. */
interface WalkSpec {
  readonly command: string;
  readonly entry: string;
  readonly parameter: string;
  /** The stage folders the options must enter once each, in this order (read → check → publish). */
  readonly stages: readonly string[];
  /** At most this many climbs back to a higher layer (issue 27's target). */
  readonly maxClimbs: number;
}

export const SPECS: readonly WalkSpec[] = [
  { command: "ingest", entry: "cli/commands/ingest.ts", parameter: "flags", stages: ["jsonl", "pipeline", "publish"], maxClimbs: 2 },
  { command: "check", entry: "cli/commands/check.ts", parameter: "flags", stages: ["pipeline"], maxClimbs: 3 },
];

/** A function the options reach: its file, its folder (`cli` for cli/, the folder under src/ otherwise), its name and first line. */
export interface Room {
  readonly file: string;
  readonly folder: string;
  readonly name: string;
  readonly line: number;
}

/** One call the walk followed: `from` runs `to` (a closure counts where its body is). */
export interface CallEdge {
  readonly from: Room;
  readonly to: Room;
}

/** What the walk of one command found: the call tree from `run`, its edges in the order the walk follows them. */
export interface OptionsWalk {
  readonly root: Room;
  readonly calls: readonly CallEdge[];
}

type FunctionWithBody = ts.FunctionLikeDeclaration & { readonly body: ts.Node };

/** Follows the options of `run`'s `parameter` in `entry` through the program; see the header. */
export function walkOptions(root: string, entry: string, parameter: string): OptionsWalk {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(root, "tsconfig.json"),
    { noEmit: true },
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  );
  if (config === undefined) throw new Error("tsconfig.json could not be read");
  const program = ts.createProgram({ rootNames: [join(root, entry)], options: config.options });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(join(root, entry));
  if (source === undefined) throw new Error(`${entry} is not in the program`);
  const run = source.statements.find((s): s is ts.FunctionDeclaration => ts.isFunctionDeclaration(s) && s.name?.text === "run" && s.body !== undefined);
  if (run === undefined) throw new Error(`${entry} has no function run`);
  const index = run.parameters.findIndex((p) => ts.isIdentifier(p.name) && p.name.text === parameter);
  if (index < 0) throw new Error(`run in ${entry} has no parameter ${parameter}`);

  const tainted = new Set<ts.Symbol>();
  const walked = new Set<ts.Node>();
  const followed = new Set<ts.Node>();
  const pending = new Map<string, FunctionWithBody[]>();
  const calls: CallEdge[] = [];
  const callers: FunctionWithBody[] = [];

  const repoFile = (node: ts.Node): string | null => {
    const file = node.getSourceFile();
    if (file.isDeclarationFile) return null;
    const path = relative(root, file.fileName).split("\\").join("/");
    return /^(src|cli)\//.test(path) ? path : null;
  };
  const roomOf = (fn: FunctionWithBody): Room => {
    const file = repoFile(fn) ?? fn.getSourceFile().fileName;
    const line = fn.getSourceFile().getLineAndCharacterOfPosition(fn.getStart()).line + 1;
    return { file, folder: folderOf(file), name: functionName(fn) ?? `(closure at line ${line})`, line };
  };
  const valueSymbol = (node: ts.Identifier): ts.Symbol | undefined =>
    ts.isShorthandPropertyAssignment(node.parent) && node.parent.name === node
      ? checker.getShorthandAssignmentValueSymbol(node.parent)
      : checker.getSymbolAtLocation(node);
  const isTaintedName = (node: ts.Identifier | ts.PrivateIdentifier): boolean => {
    const symbol = ts.isIdentifier(node) ? valueSymbol(node) : checker.getSymbolAtLocation(node);
    return symbol !== undefined && tainted.has(symbol);
  };
  const isFunction = (node: ts.Node): node is FunctionWithBody =>
    (ts.isArrowFunction(node) ||
      ts.isFunctionExpression(node) ||
      ts.isFunctionDeclaration(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isConstructorDeclaration(node)) &&
    node.body !== undefined;

  /** Whether `node` mentions the options anywhere (closures included: what they capture counts). */
  const carries = (node: ts.Node): boolean => {
    if (ts.isTypeNode(node)) return false;
    if (ts.isIdentifier(node)) return !isDeclarationName(node) && isTaintedName(node);
    if (ts.isPropertyAccessExpression(node) && isTaintedName(node.name)) return true;
    return ts.forEachChild(node, (child) => (carries(child) ? true : undefined)) === true;
  };

  /** Whether `node` is an object (or may be one): a string or number handed on is a leaf, not the options travelling. */
  const isObjectLike = (node: ts.Node): boolean => {
    const type = checker.getTypeAtLocation(node);
    const parts = type.isUnion() ? type.types : [type];
    return parts.some(
      (part) => (part.flags & (ts.TypeFlags.Object | ts.TypeFlags.NonPrimitive | ts.TypeFlags.Intersection | ts.TypeFlags.Any | ts.TypeFlags.Unknown)) !== 0,
    );
  };
  /**
   * Whether the value of `node` is (a piece of) the options: it mentions them, except that a call
   * yields them only when the walk followed it with them or it is a library call given them (a
   * method of a component built from the options computes something else: its own result).
   */
  const yields = (node: ts.Node): boolean => {
    if (isFunction(node)) return carries(node);
    if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
      if (followed.has(node)) return true;
      if (callee(node) !== null) return false;
      const receiver = ts.isPropertyAccessExpression(node.expression) ? node.expression.expression : node.expression;
      return yields(receiver) || (node.arguments ?? []).some(yields);
    }
    if (ts.isTypeNode(node)) return false;
    if (ts.isIdentifier(node)) return !isDeclarationName(node) && isTaintedName(node);
    if (ts.isPropertyAccessExpression(node) && isTaintedName(node.name)) return true;
    return ts.forEachChild(node, (child) => (yields(child) ? true : undefined)) === true;
  };
  const handsOn = (node: ts.Node): boolean => yields(node) && isObjectLike(node);

  const taintBinding = (name: ts.BindingName): void => {
    if (ts.isIdentifier(name)) {
      const symbol = checker.getSymbolAtLocation(name);
      if (symbol !== undefined) tainted.add(symbol);
      return;
    }
    for (const element of name.elements) if (!ts.isOmittedExpression(element)) taintBinding(element.name);
  };
  const taintParameter = (param: ts.ParameterDeclaration): void => {
    taintBinding(param.name);
    if (ts.isIdentifier(param.name) && ts.isParameterPropertyDeclaration(param, param.parent)) {
      for (const symbol of checker.getSymbolsOfParameterPropertyDeclaration(param, param.name.text)) tainted.add(symbol);
    }
  };
  const taintTarget = (target: ts.Expression): void => {
    if (ts.isIdentifier(target)) {
      const symbol = checker.getSymbolAtLocation(target);
      if (symbol !== undefined) tainted.add(symbol);
    } else if (ts.isPropertyAccessExpression(target)) {
      const symbol = checker.getSymbolAtLocation(target.name);
      if (symbol !== undefined) tainted.add(symbol);
    }
  };

  /** The declaration with a body in src/ or cli/ that a call runs, when the checker can name one. */
  const callee = (call: ts.CallExpression | ts.NewExpression): FunctionWithBody | null => {
    let declaration: ts.Declaration | undefined;
    try {
      declaration = checker.getResolvedSignature(call)?.declaration;
    } catch {
      return null;
    }
    if (declaration === undefined || ts.isJSDocSignature(declaration)) return null;
    if (!isFunction(declaration) && "name" in declaration && declaration.name !== undefined) {
      // An overload signature: the implementation is the declaration of the same symbol with a body.
      const symbol = checker.getSymbolAtLocation(declaration.name as ts.Node);
      declaration = symbol?.declarations?.find(isFunction) ?? declaration;
    }
    return isFunction(declaration) && repoFile(declaration) !== null ? declaration : null;
  };
  /** The name a call runs something by, when our code declares that name (an option or a parameter, never a library method such as `Map.get`). */
  const ownCalledName = (expression: ts.Expression): string | null => {
    const name = ts.isPropertyAccessExpression(expression) ? expression.name : expression;
    if (!ts.isIdentifier(name)) return null;
    return (checker.getSymbolAtLocation(name)?.declarations ?? []).some((d) => repoFile(d) !== null) ? name.text : null;
  };
  const remember = (key: string, closure: FunctionWithBody): void => {
    if (!carries(closure)) return;
    pending.set(key, [...(pending.get(key) ?? []), closure]);
  };

  /** A call of `fn` from the function being walked: an edge each time, the body walked the first time. */
  const walk = (fn: FunctionWithBody, taintedArgs: readonly boolean[]): void => {
    const caller = callers[callers.length - 1];
    if (caller !== undefined) calls.push({ from: roomOf(caller), to: roomOf(fn) });
    if (walked.has(fn)) return;
    walked.add(fn);
    fn.parameters.forEach((param, i) => {
      const given = param.dotDotDotToken !== undefined ? taintedArgs.slice(i).some(Boolean) : taintedArgs[i] === true;
      if (given) taintParameter(param);
    });
    callers.push(fn);
    visit(fn.body);
    callers.pop();
  };

  const visitCall = (call: ts.CallExpression | ts.NewExpression): void => {
    visit(call.expression);
    const args = [...(call.arguments ?? [])];
    const target = callee(call);
    for (const arg of args) {
      if (isFunction(arg)) continue;
      visit(arg);
    }
    const taintedArgs = args.map(yields);
    const handedOn = args.some(handsOn);
    if (target !== null) {
      args.forEach((arg, i) => {
        const param = target.parameters[Math.min(i, target.parameters.length - 1)];
        if (isFunction(arg) && param !== undefined && ts.isIdentifier(param.name)) remember(param.name.text, arg);
      });
      const nested = ts.findAncestor(target.parent, (n) => isFunction(n)) !== undefined;
      if (handedOn || (nested && carries(target.body))) {
        followed.add(call);
        walk(target, taintedArgs);
      }
      return;
    }
    // No body of ours: a library function runs the callbacks it is handed now; a function-typed
    // property or parameter may be a closure our code handed over under that name.
    const receiver = ts.isPropertyAccessExpression(call.expression) ? call.expression.expression : null;
    const receiverHands = receiver !== null && handsOn(receiver);
    const given = handedOn || receiverHands;
    for (const arg of args) {
      if (isFunction(arg)) {
        walk(
          arg,
          arg.parameters.map(() => given),
        );
      }
    }
    const name = ownCalledName(call.expression);
    if (name !== null && yields(call.expression)) {
      for (const closure of pending.get(name) ?? []) walk(closure, taintedArgs);
    }
  };

  const visit = (node: ts.Node): void => {
    if (ts.isTypeNode(node) || ts.isImportDeclaration(node) || ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node)) return;
    if (isFunction(node)) {
      // Defined here, run later: walked when called (or handed to a library function).
      const parent = node.parent;
      if (ts.isPropertyAssignment(parent) && !ts.isComputedPropertyName(parent.name)) remember(parent.name.getText(), node);
      if (ts.isMethodDeclaration(node) && ts.isObjectLiteralExpression(parent)) remember(node.name.getText(), node);
      return;
    }
    if (ts.isClassDeclaration(node) || ts.isClassExpression(node)) return;
    if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
      visitCall(node);
      return;
    }
    if (ts.isVariableDeclaration(node)) {
      if (node.initializer !== undefined) {
        visit(node.initializer);
        if (yields(node.initializer)) taintBinding(node.name);
      }
      return;
    }
    if (ts.isBinaryExpression(node) && isAssignment(node.operatorToken.kind)) {
      visit(node.right);
      if (ts.isPropertyAccessExpression(node.left)) visit(node.left.expression);
      if (yields(node.right)) taintTarget(node.left);
      return;
    }
    ts.forEachChild(node, (child) => visit(child));
  };

  walk(
    run as FunctionWithBody,
    run.parameters.map((_, i) => i === index),
  );
  return { root: roomOf(run as FunctionWithBody), calls };
}

/** How a reader finds a function: `Class.method`, the function's name, or the variable or property a closure is assigned to. */
function functionName(fn: FunctionWithBody): string | null {
  const owner = ts.isClassLike(fn.parent) ? `${fn.parent.name?.text ?? "(class)"}.` : "";
  if (ts.isConstructorDeclaration(fn)) return `${owner}constructor`;
  const name = fn.name ?? (ts.isVariableDeclaration(fn.parent) || ts.isPropertyAssignment(fn.parent) ? fn.parent.name : undefined);
  if (name !== undefined && (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isPrivateIdentifier(name))) return `${owner}${name.text}`;
  return null;
}

function isAssignment(kind: ts.SyntaxKind): boolean {
  return kind >= ts.SyntaxKind.FirstAssignment && kind <= ts.SyntaxKind.LastAssignment;
}

/** The name being declared (a variable, parameter, property or function name), not a read of it. */
function isDeclarationName(node: ts.Identifier): boolean {
  const parent = node.parent;
  return (
    ((ts.isVariableDeclaration(parent) ||
      ts.isParameter(parent) ||
      ts.isBindingElement(parent) ||
      ts.isFunctionDeclaration(parent) ||
      ts.isPropertyAssignment(parent) ||
      ts.isPropertyDeclaration(parent) ||
      ts.isMethodDeclaration(parent)) &&
      parent.name === node) ||
    (ts.isBindingElement(parent) && parent.propertyName === node)
  );
}

/** The figures of one walk: `layerOf` names each folder's layer, `layers` runs bottom up (`cli` and anything unnamed sit on top). */
export interface WalkFigures {
  /** How many files the functions of the call tree are in, and their folders in the order first entered. */
  readonly rooms: number;
  readonly folders: readonly string[];
  /** Distinct caller → callee pairs. */
  readonly edges: number;
  /** The edges into a folder of a higher layer. */
  readonly climbs: readonly CallEdge[];
  /** The stage folders in the order call edges from other folders enter them, consecutive repeats collapsed. */
  readonly stageSequence: readonly string[];
  /** The entries of `stageSequence` into a stage folder already in it before. */
  readonly returns: readonly CallEdge[];
  /** Whether `stageSequence` is exactly the stage list: each stage entered once, in order. */
  readonly stagesInOrder: boolean;
}

/** Counts what the targets name from the call tree; see the header for the definitions. */
export function walkFigures(walk: OptionsWalk, layerOf: ReadonlyMap<string, string>, layers: readonly string[], stages: readonly string[]): WalkFigures {
  const rank = (folder: string): number => {
    const at = layers.indexOf(layerOf.get(folder) ?? "");
    return at < 0 ? layers.length : at;
  };
  const stageSequence: string[] = [];
  const returns: CallEdge[] = [];
  for (const call of walk.calls) {
    const stage = call.to.folder;
    if (!stages.includes(stage) || call.from.folder === stage || stageSequence[stageSequence.length - 1] === stage) continue;
    if (stageSequence.includes(stage)) returns.push(call);
    stageSequence.push(stage);
  }
  const rooms = [walk.root, ...walk.calls.map((call) => call.to)];
  // An edge is a caller and a callee: two call sites of one function in another count once.
  const key = (room: Room): string => `${room.file}:${room.line}`;
  const edges = [...new Map(walk.calls.map((call) => [`${key(call.from)} ${key(call.to)}`, call])).values()];
  return {
    rooms: new Set(rooms.map((room) => room.file)).size,
    folders: [...new Set(rooms.map((room) => room.folder))],
    edges: edges.length,
    climbs: edges.filter((call) => rank(call.to.folder) > rank(call.from.folder)),
    stageSequence,
    returns,
    stagesInOrder: stageSequence.join(" ") === stages.join(" "),
  };
}

/** `caller file:function → callee file:function`, as the script prints a climb or a return. */
export function edgeLabel(call: CallEdge): string {
  return `${call.from.file}:${call.from.name} → ${call.to.file}:${call.to.name}`;
}

function main(): void {
  const { layerOf, order } = parseLayers(readFileSync(join(ROOT, "docs/architecture.md"), "utf8"));
  for (const spec of SPECS) {
    const figures = walkFigures(walkOptions(ROOT, spec.entry, spec.parameter), layerOf, order, spec.stages);
    const met = figures.stagesInOrder && figures.climbs.length <= spec.maxClimbs;
    const lines = [
      `${spec.command}: the options of run(${spec.parameter}) in ${spec.entry}`,
      `  rooms: ${figures.rooms} files in ${figures.folders.length} folders (${figures.folders.join(", ")}); call edges: ${figures.edges}`,
      `  climbs to a higher layer (${[...order, "cli"].join(" < ")}): ${figures.climbs.length}`,
      ...figures.climbs.map((call) => `    ${edgeLabel(call)}`),
      `  stage folders in the order calls enter them: ${figures.stageSequence.join(" → ")} (target: ${spec.stages.join(" → ")})`,
      `  returns to a stage folder already left: ${figures.returns.length}`,
      ...figures.returns.map((call) => `    ${edgeLabel(call)}`),
      `  target (each stage once in order, at most ${spec.maxClimbs} climbs): ${met ? "met" : "not met"}`,
    ];
    process.stdout.write(`${lines.join("\n")}\n\n`);
  }
}

// Run as a script (node dist/scripts/options-walk.js), not when a test imports the walk.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) main();
