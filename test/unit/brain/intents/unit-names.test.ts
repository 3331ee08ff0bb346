import { beforeAll, describe, expect, test } from 'vitest';
import { loadIntents } from '../../../../src/brain/intents/index.js';
import type { IntentSet } from '../../../../src/brain/intents/intent-set.js';
import { createCalculate } from '../../../../workers/calculator/calculate.js';
import { BERLIN, SHIPPED_FILE } from './helpers.js';

// Issue 29, point 10: "convert 10 kg to pounds" gave `unknown name "pounds"`. The shipped
// calculate rule rewrites the unit names people use into the calculator's (mathjs) names, and
// the real calculator (in process, the code its thread runs) answers the rewritten expression.

let shipped: IntentSet;
beforeAll(async () => {
  shipped = await loadIntents(SHIPPED_FILE);
});
const calculate = createCalculate();

/** The expression the shipped rule sends for `message`, and the calculator's answer to it. */
function convert(message: string) {
  const hit = shipped.match(message, BERLIN);
  expect(hit?.intent, message).toBe('calculate');
  const { expression } = hit!.input as { expression: string };
  return { expression, answer: calculate(expression) };
}

describe('unit names as people write them reach the calculator as mathjs names', () => {
  test.each<[message: string, expression: string, value: number, unit: string]>([
    ['convert 10 kg to pounds', '10 kg to lb', 22.046226218487757, 'lb'],
    ['convert 1 pound to kg', '1 lb to kg', 0.45359237, 'kg'],
    ['what is 16 ounces in pounds', '16 ounces in lb', 1, 'lb'],
    ['convert 2 fluid ounces to ml', '2 floz to ml', 59.147059125, 'ml'],
    ['convert 60 miles per hour to km/h', '60 mi/h to km/h', 96.56064, 'km / h'],
    ['convert 100 kilometres per hour to mph', '100 km/h to mi/h', 62.13711922373339, 'mi / h'],
    [
      'convert 100 kilometers per hour to miles per hour',
      '100 km/h to mi/h',
      62.13711922373339,
      'mi / h',
    ],
    ['convert 100 kph to mph', '100 km/h to mi/h', 62.13711922373339, 'mi / h'],
    ['convert 10 meters per second to km/h', '10 m/s to km/h', 36, 'km / h'],
    ['convert 10 degrees Celsius to Fahrenheit', '10 degC to degF', 50, 'degF'],
    ['convert 10 celsius to fahrenheit', '10 degC to degF', 50, 'degF'],
    ['convert 50 degrees fahrenheit to degrees celsius', '50 degF to degC', 10, 'degC'],
    ['convert 212 °F to °C', '212 degF to degC', 100, 'degC'],
    ['convert -40 deg C to deg F', '-40 degC to degF', -40, 'degF'],
    ['convert 0 degrees centigrade to kelvin', '0 degC to kelvin', 273.15, 'kelvin'],
    ['convert 6 feet to inches', '6 feet to inches', 72, 'inches'],
    ['convert 12 inches to cm', '12 inches to cm', 30.48, 'cm'],
    ['convert 3 gallons to liters', '3 gallons to liters', 11.356235352, 'liters'],
    ['convert 2 litres to gallons', '2 litres to gallons', 0.5283441047162969, 'gallons'],
    ['convert 2 stones to kg', '2 stone to kg', 12.70058636, 'kg'],
    ['convert 1 tbsp to tsp', '1 tablespoon to teaspoon', 3, 'teaspoon'],
    ['convert 1 kwh to kJ', '1 kWh to kJ', 3600, 'kJ'],
    ['convert 100 square feet to square metres', '100 sqft to m2', 9.290304, 'm2'],
    ['convert 1 cubic foot to liters', '1 cuft to liters', 28.316846592, 'liters'],
  ])('%j -> %j', (message, expression, value, unit) => {
    const got = convert(message);
    expect(got.expression).toBe(expression);
    expect(got.answer.unit).toBe(unit);
    expect(got.answer.value as number).toBeCloseTo(value, 9);
  });

  test('10 degC to degF is 50 degF, and the other way round', () => {
    expect(convert('convert 10 degrees celsius to fahrenheit').answer.result).toBe('50 degF');
    expect(convert('convert 50 fahrenheit to celsius').answer.result).toBe('10 degC');
  });

  test('words that are not units still go to the model, not the calculator', () => {
    for (const message of ['what is the pound sterling', 'convert my degree to a job']) {
      expect(shipped.match(message, BERLIN)?.intent).toBeUndefined();
    }
  });
});
