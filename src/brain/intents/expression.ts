/**
 * The `expression` slot: text a user types as arithmetic or a unit conversion. It is
 * recognised, not evaluated: the calculator stays the authority on what it accepts. The
 * point is to leave "what is the weather" to the LLM while taking "what is 17 * 23".
 */

/** Function and constant names the calculator knows (its README), lowercase. */
const MATH_NAMES = new Set(
  (
    'abs sign gcd lcm hypot min max pow sqrt cbrt nthroot exp expm1 log log10 log2 log1p ' +
    'sin cos tan sec csc cot asin acos atan atan2 sinh cosh tanh asinh acosh atanh round ' +
    'floor ceil fix factorial pi e tau phi'
  ).split(' '),
);

/** Operator words mathjs reads as they are. */
const OPERATOR_WORDS = new Set(['to', 'in', 'mod']);

/** Unit names and symbols a conversion commonly uses (mathjs spellings), lowercase. */
const UNIT_WORDS = new Set(
  (
    'm mm cm km um nm meter meters metre metres kilometer kilometers kilometre kilometres ' +
    'centimeter centimeters millimeter millimeters in inch inches ft foot feet yd yard yards ' +
    'mi mile miles ' +
    'g mg kg gram grams kilogram kilograms milligram milligrams t tonne tonnes lb lbs lbm ' +
    'pound pounds oz ounce ounces stone ' +
    'l ml cl dl liter liters litre litres milliliter milliliters gal gallon gallons qt quart ' +
    'quarts pt pint pints cup cups floz tsp tbsp teaspoon teaspoons tablespoon tablespoons ' +
    'm2 m3 cm2 cm3 km2 sqin sqft sqyd sqmi acre acres hectare hectares ' +
    's ms us ns sec second seconds min minute minutes h hr hour hours day days week weeks ' +
    'month months year years ' +
    'degc degf degk k kelvin celsius fahrenheit deg degree degrees rad radian radians grad ' +
    'mph kph kmh cuft ' +
    'b kb mb gb tb kib mib gib tib bit bits byte bytes ' +
    'j kj cal kcal wh kwh w kw mw hp v a ohm hz khz mhz ghz pa kpa hpa bar psi atm n'
  ).split(' '),
);

/** Characters the calculator's pre-screen lets through (its README, "Refused"). */
const CALCULATOR_CHARS_RE = /^[0-9A-Za-z\s.,+\-*/^%!()[\];]*$/;
const WORD_RE = /[A-Za-z]+\d*/g;

/** Spoken operators rewritten into calculator syntax, in order. Linear regexes only. */
const REWRITES: readonly (readonly [RegExp, string])[] = [
  [/[×⋅·✕]/g, ' * '],
  [/÷/g, ' / '],
  [/[−–]/g, '-'],
  [/²/g, '^2'],
  [/³/g, '^3'],
  [/\bmultiplied by\b/gi, ' * '],
  [/\btimes\b/gi, ' * '],
  [/\bdivided by\b/gi, ' / '],
  [/\bplus\b/gi, ' + '],
  [/\bminus\b/gi, ' - '],
  [/\bto the power of\b/gi, ' ^ '],
  [/\bsquared\b/gi, ' ^ 2'],
  [/\bcubed\b/gi, ' ^ 3'],
  [/\bpercent of\b/gi, '% * '],
  [/%\s*of\b/gi, '% * '],
  [/\binto\b/gi, ' to '],
  [/(\d)\s*x(?=\s*\d)/gi, '$1 * '],
];

const PER_HOUR = String.raw`\s+(?:per|an|a)\s+hour`;
const METRE = String.raw`met(?:er|re)s?`;

/**
 * Unit names as people write them, rewritten into the calculator's (mathjs) spellings, in
 * order: "pounds" (mathjs knows `lb` and `lbs`), "miles per hour" and "mph" (`mi/h`: mathjs
 * has no `mph`), "degrees Fahrenheit", "°C", "kph", "square feet", "kWh". mathjs already knows
 * the plain plurals (ounces, feet, inches, gallons, liters, litres, miles). Linear regexes
 * only, case aside.
 */
const UNIT_ALIASES: readonly (readonly [RegExp, string])[] = [
  [/°\s*F\b/gi, ' degF'],
  [/°\s*C\b/gi, ' degC'],
  [/\bdeg(?:rees?)?\s+(?:fahrenheit|f)\b/gi, 'degF'],
  [/\bdeg(?:rees?)?\s+(?:celsius|centigrade|c)\b/gi, 'degC'],
  [/\bdeg(?:rees?)?\s+kelvin\b/gi, 'K'],
  [/\bfahrenheit\b/gi, 'degF'],
  [/\b(?:celsius|centigrade)\b/gi, 'degC'],
  [new RegExp(String.raw`\bmiles?${PER_HOUR}\b`, 'gi'), 'mi/h'],
  [new RegExp(String.raw`\b(?:kilo${METRE}|km)${PER_HOUR}\b`, 'gi'), 'km/h'],
  [new RegExp(String.raw`\b${METRE}\s+(?:per|a)\s+second\b`, 'gi'), 'm/s'],
  [/\b(?:feet|foot)\s+(?:per|a)\s+second\b/gi, 'ft/s'],
  [/\bmph\b/gi, 'mi/h'],
  [/\b(?:kph|kmh|kmph)\b/gi, 'km/h'],
  [/\bfluid\s+ounces?\b/gi, 'floz'],
  [/\bfl\s+oz\b/gi, 'floz'],
  [/\bpounds?\b/gi, 'lb'],
  [/\bstones\b/gi, 'stone'],
  [/\btbsps?\b/gi, 'tablespoon'],
  [/\btsps?\b/gi, 'teaspoon'],
  [/\bkwh\b/gi, 'kWh'],
  [new RegExp(String.raw`\bsquare\s+(?:kilo${METRE}|km)\b`, 'gi'), 'km2'],
  [new RegExp(String.raw`\bsquare\s+(?:centi${METRE}|cm)\b`, 'gi'), 'cm2'],
  [new RegExp(String.raw`\bsquare\s+(?:${METRE}|m)\b`, 'gi'), 'm2'],
  [/\bsquare\s+(?:feet|foot|ft)\b/gi, 'sqft'],
  [/\bsquare\s+(?:inch|inches|in)\b/gi, 'sqin'],
  [/\bsquare\s+(?:miles?|mi)\b/gi, 'sqmi'],
  [new RegExp(String.raw`\bcubic\s+(?:centi${METRE}|cm)\b`, 'gi'), 'cm3'],
  [new RegExp(String.raw`\bcubic\s+(?:${METRE}|m)\b`, 'gi'), 'm3'],
  [/\bcubic\s+(?:feet|foot|ft)\b/gi, 'cuft'],
];

/**
 * Rewrites spoken operators ("5 times 3", "2 squared", "20% of 80", "3 x 4", "×", "÷") and
 * unit names ("pounds", "miles per hour", "degrees Fahrenheit") into calculator syntax and
 * tidies blanks. Returns undefined when the text does not look like an
 * expression: it must use only characters the calculator accepts, contain a digit or a math
 * name (sqrt, pi, ...), and every word in it must be a math name, a unit or `to`/`in`/`mod`.
 */
export function recogniseExpression(text: string): string | undefined {
  let out = text;
  for (const [re, replacement] of [...UNIT_ALIASES, ...REWRITES]) {
    out = out.replace(re, replacement);
  }
  out = out.replace(/\s+/g, ' ').trim();
  if (out === '' || !CALCULATOR_CHARS_RE.test(out)) return undefined;
  let mathy = /\d/.test(out);
  for (const match of out.matchAll(WORD_RE)) {
    const word = match[0].toLowerCase();
    const bare = word.replace(/\d+$/, '');
    if (MATH_NAMES.has(word) || MATH_NAMES.has(bare)) mathy = true;
    else if (!OPERATOR_WORDS.has(word) && !UNIT_WORDS.has(word) && !UNIT_WORDS.has(bare)) {
      return undefined;
    }
  }
  return mathy ? out : undefined;
}
