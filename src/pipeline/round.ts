// Half-to-even rounding, as the original's summaries and manifests use; JS `toFixed`/`Math.round`
// round ties differently, which would make verdict JSON differ between implementations.

export function roundHalfEven(value: number, places: number): number {
  if (!Number.isFinite(value)) throw new RangeError("cannot round a non-finite number");
  const factor = 10 ** places;
  const scaled = value * factor;
  const floor = Math.floor(scaled);
  // Treat values within float noise of .5 as exact ties only when the decimal text says so.
  const tie = Math.abs(scaled - floor - 0.5) < 1e-9 && isDecimalTie(value, places);
  const rounded = tie ? floor + (floor % 2 === 0 ? 0 : 1) : Math.round(scaled);
  const result = rounded / factor;
  return Object.is(result, -0) ? 0 : result;
}

function isDecimalTie(value: number, places: number): boolean {
  // The shortest decimal text of `value` ends in a 5 exactly one place past `places`.
  const text = Math.abs(value).toString();
  if (text.includes("e")) return false;
  const dot = text.indexOf(".");
  if (dot < 0) return false;
  const decimals = text.slice(dot + 1);
  return decimals.length === places + 1 && decimals.endsWith("5");
}
