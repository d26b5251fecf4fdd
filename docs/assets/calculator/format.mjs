// How numbers read in the calculator: the same functions as generator/model/formatting.py, giving the
// same strings (tests/test_formats.py holds both to one set of golden strings). Not Intl: the
// first NumberFormat a page makes loads locale data, tens of milliseconds before the first answer.
// The words, units and display limits are formatting.py's (`formats()`, in the calculator's data):
// `learn` them before formatting anything; this module holds the rounding alone.

export let NONE, FIRST_RUN, NO_CROSSING;
let F = null;
export function learn(formats) {
  F = formats;
  ({ NONE, FIRST_RUN, NO_CROSSING } = formats);
}

const missing = (x) => x === null || x === undefined || typeof x !== "number" || !Number.isFinite(x);

// The digits of a >= 0 to d places, rounded on the double's exact value with ties to even, as
// Python's formatting rounds. toFixed rounds ties up, so an exact tie is found and settled here.
function digitsOf(a, d) {
  const up = a.toFixed(d);
  if (a >= 1e21) return up;
  const full = a.toFixed(100); // exact for every double this guide formats
  const [whole, frac] = full.split(".");
  if (frac[d] !== "5" || /[1-9]/.test(frac.slice(d + 1))) return up;
  const kept = d ? whole + "." + frac.slice(0, d) : whole;
  const last = Number(kept[kept.length - 1]);
  return last % 2 === 0 ? kept : up;
}

export function fixed(x, d) {
  const body = digitsOf(Math.abs(x), d).replace(/^\d+/, (w) => w.replace(/\B(?=(\d{3})+$)/g, ","));
  const zero = /^[0.,]*$/.test(body);
  return x >= 0 || zero ? body : "-" + body;
}

function trim(text, keep) {
  if (!text.includes(".")) return text;
  let [whole, frac] = text.split(".");
  frac = frac.replace(/0+$/, "");
  frac = frac + "0".repeat(Math.max(0, keep - frac.length));
  return whole + (frac ? "." + frac : "");
}

const signedDollars = (body) => (body.startsWith("-") ? "-" : "") + F.UNITS.dollar + body.replace(/^-/, "");

export function money(x) {
  return missing(x) ? NONE : signedDollars(fixed(x, 0));
}

export function hourly(x) {
  return missing(x) ? NONE : signedDollars(fixed(x, 2)) + F.UNITS.per_hour;
}

export function hourlyExact(x) {
  return missing(x) ? NONE : signedDollars(trim(fixed(x, 6), 2)) + F.UNITS.per_hour;
}

export function breakEven(x) {
  if (missing(x)) return NO_CROSSING;
  return x <= 1 ? FIRST_RUN : runs(x);
}

export function runs(x) {
  if (missing(x)) return NONE;
  if (Number.isInteger(x)) return fixed(x, 0);
  if (Math.abs(x) >= F.RUNS_FINE_BELOW) return fixed(x, 1);
  return fixed(x, 1 - Math.floor(Math.log10(Math.abs(x))));
}

export function ratio(x) {
  return missing(x) ? NONE : fixed(x, 2) + F.UNITS.times;
}

export function pct(x, signed = false) {
  if (missing(x)) return NONE;
  let body = trim(fixed(x * 100, 1), 0);
  if (signed && !body.startsWith("-") && /[^0.,]/.test(body)) body = "+" + body;
  return body + F.UNITS.percent;
}

export function weeks(x) {
  return missing(x) ? NONE : trim(fixed(x, 1), 0);
}

export function rate(x) {
  if (missing(x)) return NONE;
  if (x === 0 || Math.abs(x) >= F.RATE_FINE_BELOW) return trim(fixed(x, 4), 0);
  return trim(fixed(x, 1 - Math.floor(Math.log10(Math.abs(x)))), 0);
}

export function days(x) {
  if (missing(x)) return NONE;
  const body = trim(fixed(x, 1), 0);
  return body + F.UNITS[body === "1" ? "day" : "days"];
}

export function count(x) {
  return missing(x) ? NONE : fixed(x, 0);
}

export function num(x, digits = 2) {
  return missing(x) ? NONE : fixed(x, digits);
}

export function hours(h) {
  if (missing(h)) return NONE;
  return h >= F.DAYS_FROM_HOURS ? fixed(h / 24, 1) + F.UNITS.days : fixed(h, 1) + F.UNITS.hours;
}

export function calendar(h) {
  if (missing(h)) return NONE;
  for (const [size, below, unit] of F.CALENDAR) {
    if (h < below) {
      const body = trim(fixed(h / size, 1), 0);
      return body + " " + unit + (body === "1" ? "" : "s");
    }
  }
  const body = trim(fixed(h / F.YEAR_HOURS, 1), 0);
  return body + (body === "1" ? " year" : " years");
}

export function date(d) {
  return d === null || d === undefined ? NONE : String(d);
}
