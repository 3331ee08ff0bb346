import { describe, expect, test } from 'vitest';
import { NotConfiguredError, type ToolContext } from '../../../src/legion/index.js';
import { silentLogger } from '../../../src/log/index.js';
import { loadShippedTools } from '../../../workers/index.js';
import { calendarReadTool, createCalendarReadTool } from '../../../workers/calendar_read/index.js';
import {
  CalendarConfigSchema,
  type CalendarConfig,
} from '../../../workers/calendar_read/config.js';

const worker = { id: 'test-worker', host: 'localhost' };

function callContext(config: CalendarConfig): ToolContext<CalendarConfig> {
  return {
    logger: silentLogger(),
    signal: new AbortController().signal,
    decisionId: 'dec-1',
    deadline: Date.now() + 10_000,
    config,
    worker,
  };
}

describe('calendar_read tool', () => {
  test('declares its spec: read-only, LAN, the calendar section, its schemas', () => {
    expect(calendarReadTool.configSection).toBe('calendar');
    expect(calendarReadTool.spec).toMatchObject({
      name: 'calendar_read',
      version: '1.0.0',
      tags: ['tool', 'calendar', 'home', 'network'],
      annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: true },
      execution_locality: 'lan',
      resource_requirements: { cpu: 'low', memory_mb: 128, network: true },
      input_schema: {
        type: 'object',
        additionalProperties: false,
        properties: {
          start: { type: 'string' },
          end: { type: 'string' },
          days: { type: 'number', exclusiveMinimum: 0, maximum: 366 },
          calendars: { type: 'array' },
          query: { type: 'string' },
          limit: { type: 'integer', default: 50, maximum: 500 },
        },
      },
    });
    expect(calendarReadTool.spec.output_schema).toMatchObject({
      required: ['start', 'end', 'timezone', 'events'],
    });
    expect(calendarReadTool.spec.description).toMatch(/read only/);
  });

  test('is shipped: workers/index.ts loads it by name', async () => {
    const [tool] = await loadShippedTools(['calendar_read']);
    expect(tool?.spec.name).toBe('calendar_read');
  });

  test.each([
    [{}, /CAESAR_TOOLS__CALENDAR__CALDAV_URL \(tools\.calendar\.caldav_url\)/],
    [
      { caldav_url: 'http://127.0.0.1:5232/', username: 'alice' },
      /CAESAR_TOOLS__CALENDAR__PASSWORD \(/,
    ],
  ])('unconfigured (%j): the call and the preflight name the key to set', async (section, key) => {
    const config = CalendarConfigSchema.parse(section);
    const tool = createCalendarReadTool();
    await tool.start!({ logger: silentLogger(), config, worker });
    try {
      const call = tool.handler({ limit: 50 }, callContext(config));
      await expect(call).rejects.toBeInstanceOf(NotConfiguredError);
      await expect(call).rejects.toThrow(key);
      const preflight = await tool.preflight!({ logger: silentLogger(), config, worker });
      expect(preflight.ok).toBe(false);
      expect(preflight.checks).toEqual([
        { name: 'configured', ok: false, detail: expect.stringMatching(key) },
      ]);
    } finally {
      await tool.stop!();
    }
  });

  test('a configured tool that was not started answers internal', async () => {
    const config = CalendarConfigSchema.parse({
      caldav_url: 'http://127.0.0.1:5232/',
      username: 'alice',
      password: 'pw',
    });
    await expect(
      createCalendarReadTool().handler({ limit: 50 }, callContext(config)),
    ).rejects.toMatchObject({
      code: 'internal',
    });
  });
});
