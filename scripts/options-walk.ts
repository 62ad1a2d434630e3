// `npm run graph:options`: how a run's options walk the house (issue 27's targets; the figures
// are in docs/architecture.md, "How a run's options walk the house"). For `ingest` and `check` it
// follows the flags from `run(…, flags, …)` in cli/commands/<name>.ts to the last place that reads
// them, and prints the files (rooms) and folders they pass through in order, the climbs back to a
// higher layer, the returns to a folder already left, and whether each stage folder is entered
// once, in pipeline order.
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
// - a call that hands on an object of the options (an argument whose type is an object, so not a
//   string or number read from them) is followed into the callee when its declaration has a body
//   in src/ or cli/, each function once; a callback handed to a library function (`map`) is walked
//   there and then; a closure handed to our own code (`pipeline: (policy) => …`, a hook) is walked
//   when the walk calls something of that name that has no body (`options.pipeline(policy)`);
// - every mention of the options is a step in the file that holds it; consecutive steps in one
//   file are one visit.
// Both branches of an `if` and one pass of a loop are walked: the walk is what the code can do,
// not what one input makes it do. Not followed: calls through an interface (dynamic dispatch),
// methods called on a component built from the options, getters and field initialisers.
//
// A climb is a step from a folder to a folder of a higher layer, the layers being the "Layer"
// column of the table in docs/architecture.md (core < documents < detection < stages < entry,
// then cli); a return is a step into a folder the walk has already left. The only paths named
// here are the commands' entry files, so the walk follows code wherever it moves.
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

const SPECS: readonly WalkSpec[] = [
  { command: "ingest", entry: "cli/commands/ingest.ts", parameter: "flags", stages: ["jsonl", "pipeline", "publish"], maxClimbs: 2 },
  { command: "check", entry: "cli/commands/check.ts", parameter: "flags", stages: ["pipeline"], maxClimbs: 3 },
];

/** What the walk of one command found. */
export interface OptionsWalk {
  /** The files that read the options, in order, consecutive repeats collapsed. */
  readonly files: readonly string[];
  /** The folders of `files` (`cli` for cli/, the folder under src/ otherwise), consecutive repeats collapsed. */
  readonly folders: readonly string[];
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
  const steps: string[] = [];

  const repoFile = (node: ts.Node): string | null => {
    const file = node.getSourceFile();
    if (file.isDeclarationFile) return null;
    const path = relative(root, file.fileName).split("\\").join("/");
    return /^(src|cli)\//.test(path) ? path : null;
  };
  const step = (node: ts.Node): void => {
    const file = repoFile(node);
    if (file !== null && steps[steps.length - 1] !== file) steps.push(file);
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
  const calledName = (expression: ts.Expression): string | null => {
    if (ts.isIdentifier(expression)) return expression.text;
    if (ts.isPropertyAccessExpression(expression)) return expression.name.text;
    return null;
  };
  const remember = (key: string, closure: FunctionWithBody): void => {
    if (!carries(closure)) return;
    pending.set(key, [...(pending.get(key) ?? []), closure]);
  };

  const walk = (fn: FunctionWithBody, taintedArgs: readonly boolean[]): void => {
    if (walked.has(fn)) return;
    walked.add(fn);
    fn.parameters.forEach((param, i) => {
      const given = param.dotDotDotToken !== undefined ? taintedArgs.slice(i).some(Boolean) : taintedArgs[i] === true;
      if (given) taintParameter(param);
    });
    visit(fn.body);
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
    const name = calledName(call.expression);
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
    if (ts.isIdentifier(node)) {
      if (!isDeclarationName(node) && isTaintedName(node)) step(node);
      return;
    }
    if (ts.isPropertyAccessExpression(node)) {
      visit(node.expression);
      if (isTaintedName(node.name)) step(node);
      return;
    }
    ts.forEachChild(node, (child) => visit(child));
  };

  const args = run.parameters.map((_, i) => i === index);
  step(run);
  walk(run as FunctionWithBody, args);
  const folders = steps.map(folderOf).filter((folder, i, all) => i === 0 || all[i - 1] !== folder);
  return { files: steps, folders };
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
  readonly rooms: number;
  readonly folders: number;
  readonly climbs: number;
  readonly returns: number;
  readonly stageEntries: readonly number[];
  readonly stagesInOrder: boolean;
}

/** Counts what the targets name: distinct rooms and folders, climbs to a higher layer, returns to a folder already left, stage entries. */
export function walkFigures(walk: OptionsWalk, layerOf: ReadonlyMap<string, string>, layers: readonly string[], stages: readonly string[]): WalkFigures {
  const rank = (folder: string): number => {
    const at = layers.indexOf(layerOf.get(folder) ?? "");
    return at < 0 ? layers.length : at;
  };
  let climbs = 0;
  let returns = 0;
  walk.folders.forEach((folder, i) => {
    if (i === 0) return;
    if (rank(folder) > rank(walk.folders[i - 1] as string)) climbs += 1;
    if (walk.folders.slice(0, i - 1).includes(folder)) returns += 1;
  });
  const stageEntries = stages.map((stage) => walk.folders.filter((folder) => folder === stage).length);
  const firsts = stages.map((stage) => walk.folders.indexOf(stage));
  const stagesInOrder = stageEntries.every((n) => n === 1) && firsts.every((at, i) => i === 0 || at > (firsts[i - 1] as number));
  return { rooms: new Set(walk.files).size, folders: new Set(walk.folders).size, climbs, returns, stageEntries, stagesInOrder };
}

function main(): void {
  const { layerOf, order } = parseLayers(readFileSync(join(ROOT, "docs/architecture.md"), "utf8"));
  for (const spec of SPECS) {
    const walk = walkOptions(ROOT, spec.entry, spec.parameter);
    const figures = walkFigures(walk, layerOf, order, spec.stages);
    const met = figures.stagesInOrder && figures.climbs <= spec.maxClimbs;
    const lines = [
      `${spec.command}: the options of run(${spec.parameter}) in ${spec.entry}`,
      `  rooms in order: ${walk.files.join(" → ")}`,
      `  folders in order: ${walk.folders.join(" → ")}`,
      `  rooms (files): ${figures.rooms}; folders: ${figures.folders}; steps between folders: ${walk.folders.length - 1}`,
      `  climbs back to a higher layer (${[...order, "cli"].join(" < ")}): ${figures.climbs}; returns to a folder already left: ${figures.returns}`,
      `  stage folders ${spec.stages.join(" → ")} entered ${figures.stageEntries.join(", ")} times; each once, in order: ${figures.stagesInOrder ? "yes" : "no"}`,
      `  target (each stage once in order, at most ${spec.maxClimbs} climbs): ${met ? "met" : "not met"}`,
    ];
    process.stdout.write(`${lines.join("\n")}\n\n`);
  }
}

// Run as a script (node dist/scripts/options-walk.js), not when a test imports the walk.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) main();
