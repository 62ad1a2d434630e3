// A SARIF 2.1.0 log of one screen or ingest run: every rule is known before the first result
// (rules.ts), so results are spooled as items finish and the log is framed around them at the
// end, in memory bounded by one result. One result per item that did not pass, at its input line,
// fingerprinted by the item's SHA-256 so a code-scanning service can follow it across runs.
import { VERSION } from "../core/version.js";
import { resultMessage, type ReportFormat, type ReportItem, type ReportMatch, type ReportRun } from "./report-item.js";
import { RULE_LIST, ruleIndex, type ReportRule } from "./rules.js";

/** The JSON schema a SARIF 2.1.0 log names. */
const SARIF_SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json";
/** Where a reader of an alert learns what the tool is (SARIF `tool.driver.informationUri`). */
const INFORMATION_URI = "https://github.com/little-canary/little-canary";
/** The rule table a rule's help links to. */
const RULES_URI = `${INFORMATION_URI}/blob/main/docs/ci.md#rules`;

/**
 * The URI reference SARIF names the input by: the path as given, with `\` turned into `/` and
 * each segment percent-encoded; an absolute path as a `file://` URI (SARIF's form for an absolute
 * path: a bare `/tmp/x` is not an absolute URI);
 * standard input is `stdin`.
 */
export function artifactUri(input: string | null): string {
  if (input === null || input === "-") return "stdin";
  const encoded = input
    .replaceAll("\\", "/")
    .split("/")
    .map((segment) => encodeURIComponent(segment))
    .join("/");
  return encoded.startsWith("/") ? `file://${encoded}` : encoded;
}

/**
 * The tool and its rules, with what GitHub code scanning reads to rank and explain an alert:
 * `security-severity` and the `security` tag (without them an alert is a plain "warning" or
 * "error", not a security finding), the full description and the Markdown help.
 */
function driver(): Record<string, unknown> {
  return {
    name: "little-canary",
    version: VERSION,
    informationUri: INFORMATION_URI,
    rules: RULE_LIST.map((rule) => ({
      id: rule.id,
      name: rule.name,
      shortDescription: { text: rule.summary },
      fullDescription: { text: rule.description },
      help: { text: rule.help, markdown: `**${rule.summary}**\n\n${rule.help}\n\nSee [the rule table](${RULES_URI}).` },
      helpUri: RULES_URI,
      defaultConfiguration: { level: rule.level },
      properties: { kind: rule.kind, tags: rule.tags, "security-severity": rule.securitySeverity },
    })),
  };
}

/** Results of texts the run did not fully screen: under a coverage rule, or detections with a part not screened. */
interface UnscreenedCounts {
  coverage: number;
  detection: number;
}

/**
 * The run's one invocation. Reports are written only for a run that reached its end, but a run
 * in which some text was not screened, or that had no text at all, did not do its job:
 * `executionSuccessful` is false then, and a notification says why (GitHub shows it on the
 * tool's status page).
 */
function invocation(facts: ReportRun, unscreened: UnscreenedCounts, notListed: number): Record<string, unknown> {
  const notScreened = unscreened.coverage + unscreened.detection;
  // Which results they are, so the count matches what the log lists: a detection whose canary did not run is one of them.
  const which =
    unscreened.detection === 0
      ? "coverage results"
      : `${unscreened.coverage} coverage result${unscreened.coverage === 1 ? "" : "s"}, ${unscreened.detection} detection result${unscreened.detection === 1 ? "" : "s"} with a part not screened`;
  const text = `${notScreened} of ${facts.total} item${facts.total === 1 ? "" : "s"} not fully screened (${which})`;
  const notifications: Array<{ level: string; message: { text: string } }> = [];
  if (notScreened > 0) notifications.push({ level: "error", message: { text } });
  // An input of no items screened nothing: the command exits 2 for it, and the log must not read as a clean run.
  if (facts.total === 0) notifications.push({ level: "error", message: { text: "the input held no items: nothing was screened" } });
  if (notListed > 0) {
    const more = `${notListed} more result${notListed === 1 ? "" : "s"}`;
    const why = `a run lists at most ${MAX_SARIF_RESULTS} (GitHub code scanning rejects a run with more); the command's own output lists every item`;
    notifications.push({ level: "warning", message: { text: `${more} not listed: ${why}` } });
  }
  return {
    executionSuccessful: notScreened === 0 && facts.total > 0,
    // SARIF's date-time form: UTC with a `Z`.
    startTimeUtc: facts.startedAt.toISOString(),
    endTimeUtc: facts.endedAt.toISOString(),
    ...(notifications.length === 0 ? {} : { toolExecutionNotifications: notifications }),
  };
}

/**
 * One structural match as a related location: the input line, a message with the reason and its
 * explanation, and the offsets in properties. The offsets are code points of the segment's text,
 * not of the input file: the text sits JSON-escaped in its line, so no region of the file (SARIF
 * `charOffset`, which counts the artifact's characters) would point at the same place.
 */
function relatedLocation(m: ReportMatch, id: number, line: number, artifact: string, inLabels: boolean): Record<string, unknown> {
  // A match in the labels (screen): its offsets are into the id, source and metadata material.
  const material = inLabels ? { material: "labels" } : {};
  return {
    id,
    physicalLocation: { artifactLocation: { uri: artifact }, region: { startLine: line } },
    message: { text: `${m.reason}: ${m.explanation}` },
    properties: { reason: m.reason, segment: m.segment, textStart: m.start, textEnd: m.end, textOffsetUnit: "unicodeCodePoints", ...material },
  };
}

/** The SARIF result of one item that broke a rule. */
function resultOf(item: ReportItem, rule: ReportRule, artifact: string): Record<string, unknown> {
  return {
    ruleId: rule.id,
    ruleIndex: ruleIndex(rule),
    level: rule.level,
    message: { text: resultMessage(item) },
    locations: [{ physicalLocation: { artifactLocation: { uri: artifact }, region: { startLine: item.line } } }],
    ...(item.matches.length > 0 ? { relatedLocations: item.matches.map((m, i) => relatedLocation(m, i, item.line, artifact, item.inLabels === true)) } : {}),
    // The text's digest: the same text is the same finding, wherever it moves in the file.
    ...(item.sha256 === "" ? {} : { partialFingerprints: { "itemSha256/v1": item.sha256 } }),
    properties: { index: item.index, outcome: item.outcome },
  };
}

/**
 * Most results one run lists, in input order: GitHub code scanning rejects a SARIF run of more
 * than 25,000 results, and a rejected upload shows no alert at all.
 */
export const MAX_SARIF_RESULTS = 25_000;

/**
 * The SARIF format of a log naming the input `artifact` (see `artifactUri`): one result per item
 * that did not pass, as a member of the run's `results` array.
 */
export function sarifFormat(artifact: string): ReportFormat {
  let results = 0;
  /** Results under a coverage rule, and detections with a part not screened: texts the run did not (fully) screen. */
  const unscreened: UnscreenedCounts = { coverage: 0, detection: 0 };
  /** Results past MAX_SARIF_RESULTS, counted in a notification instead. */
  let notListed = 0;
  return {
    label: "sarif-results",
    entry(item) {
      if (item.rule === null) return "";
      if (item.rule.kind === "coverage") unscreened.coverage++;
      else if (item.unscreenedPart === true) unscreened.detection++;
      if (results >= MAX_SARIF_RESULTS) {
        notListed++;
        return "";
      }
      const text = JSON.stringify(resultOf(item, item.rule, artifact));
      return results++ === 0 ? text : `,${text}`;
    },
    frame(facts) {
      const run = {
        tool: { driver: driver() },
        invocations: [invocation(facts, unscreened, notListed)],
        columnKind: "unicodeCodePoints",
        properties: { total: facts.total, ...(notListed === 0 ? {} : { resultsNotListed: notListed }), ...facts.properties },
      };
      const head = JSON.stringify({ $schema: SARIF_SCHEMA_URI, version: "2.1.0", runs: [{ ...run, results: [] }] });
      // The frame: everything before and after the empty results array of the one run.
      const marker = '"results":[]';
      const at = head.lastIndexOf(marker);
      return { prefix: `${head.slice(0, at)}"results":[`, suffix: head.slice(at + marker.length - 1) };
    },
  };
}
