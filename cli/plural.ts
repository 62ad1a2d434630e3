// Counts in messages: "1 record", "2 records".

/** `count` followed by `singular`, or by `pluralForm` (default: singular + "s") unless it is 1. */
export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : pluralForm}`;
}
