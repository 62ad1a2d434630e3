// A JUnit XML report of one screen or ingest run: one <testcase> per item, a <failure> for a
// detection, an <error> for a coverage failure (a text that was not screened is never a passing
// test); never item text. Test cases are spooled as they finish and the counts framed around them,
// with the suite's start (`timestamp`) and duration (`time`, seconds) from the run's clock.
import { resultMessage, type ReportFormat, type ReportItem } from "./report-item.js";

/** Characters XML 1.0 cannot carry at all, even escaped: they are replaced by U+FFFD. */
const NOT_XML = /[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu;

/** `text` as an XML attribute value or character data: markup characters escaped, characters XML cannot hold replaced. */
export function xmlEscape(text: string): string {
  return text
    .replace(NOT_XML, "\ufffd")
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&apos;")
    .replaceAll("\n", "&#10;")
    .replaceAll("\r", "&#13;")
    .replaceAll("\t", "&#9;");
}

function testcase(item: ReportItem, suite: string): string {
  const name = xmlEscape(`item ${item.index}${item.id === null ? "" : ` (id ${item.id})`} line ${item.line}`);
  const open = `<testcase classname="${xmlEscape(suite)}" name="${name}">`;
  const rule = item.rule;
  if (rule === null) return `${open}</testcase>\n`;
  const element = rule.kind === "detection" ? "failure" : "error";
  const body = xmlEscape(`sha256 ${item.sha256 === "" ? "(none)" : item.sha256}`);
  return `${open}<${element} type="${xmlEscape(rule.id)}" message="${xmlEscape(resultMessage(item))}">${body}</${element}></testcase>\n`;
}

/**
 * JUnit's `timestamp` form: ISO 8601 without a zone or fraction (`2026-12-02T13:29:44`), as the
 * JUnit XML schema (Ant, Jenkins) gives it; the time is UTC.
 */
const junitTimestamp = (date: Date): string => date.toISOString().slice(0, 19);

/** A duration in JUnit's `time` form: seconds with millisecond precision, never negative. */
const seconds = (from: Date, to: Date): string => (Math.max(0, to.getTime() - from.getTime()) / 1000).toFixed(3);

/** The JUnit format of a report whose suite is named `suite` (the input): counts kept as items are added. */
export function junitFormat(suite: string): ReportFormat {
  let tests = 0;
  let failures = 0;
  let errors = 0;
  return {
    label: "junit-cases",
    entry(item) {
      tests++;
      if (item.rule?.kind === "detection") failures++;
      else if (item.rule !== null) errors++;
      return testcase(item, suite);
    },
    frame({ startedAt, endedAt }) {
      // An input of no items screened nothing (the command exits 2): one erroring case says so,
      // since most CI systems read a suite of no tests as a pass.
      const empty =
        tests === 0
          ? `<testcase classname="${xmlEscape(suite)}" name="input"><error type="little-canary/no-items" message="the input held no items: nothing was screened"></error></testcase>\n`
          : "";
      const counts = tests === 0 ? `tests="1" failures="0" errors="1"` : `tests="${tests}" failures="${failures}" errors="${errors}"`;
      const time = `time="${seconds(startedAt, endedAt)}"`;
      const prefix =
        `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="little-canary" ${counts} ${time}>\n` +
        `<testsuite name="${xmlEscape(suite)}" ${counts} skipped="0" ${time} timestamp="${junitTimestamp(startedAt)}">\n${empty}`;
      return { prefix, suffix: "</testsuite>\n</testsuites>\n" };
    },
  };
}
