import type { FakeArea, FakeDevice, FakeEntityInit } from '../../../helpers/fake-home-assistant.js';

/** A small home: three areas, two devices, lights, switches and a sensor. */
export const AREAS: FakeArea[] = [
  { area_id: 'kitchen', name: 'Kitchen', aliases: ['cookhouse'] },
  { area_id: 'living_room', name: 'Living Room', aliases: ['lounge'] },
  { area_id: 'bedroom', name: 'Bedroom' },
];

export const DEVICES: FakeDevice[] = [
  { id: 'dev_ceiling', name: 'Ceiling fixture', area_id: 'kitchen' },
  { id: 'dev_lamp', name: 'Bedside lamp', area_id: 'bedroom' },
];

const named = (
  entity_id: string,
  friendly_name: string,
  extra: Partial<FakeEntityInit> = {},
): FakeEntityInit => ({
  entity_id,
  state: 'off',
  attributes: { friendly_name },
  ...extra,
});

export const HOME: FakeEntityInit[] = [
  named('light.kitchen', 'Kitchen Light', { area_id: 'kitchen' }),
  named('light.kitchen_ceiling', 'Kitchen Ceiling', { device_id: 'dev_ceiling' }),
  named('light.kitchen_counter', 'Kitchen Counter', { area_id: 'kitchen', state: 'on' }),
  named('switch.kitchen_fan', 'Kitchen Fan', { area_id: 'kitchen' }),
  named('light.living_room', 'Living Room Lamp', { area_id: 'living_room', aliases: ['big lamp'] }),
  named('light.bed', 'Bedside', { device_id: 'dev_lamp', aliases: ['reading light'] }),
  named('sensor.kitchen_temperature', 'Kitchen Temperature', { state: '21.5', area_id: 'kitchen' }),
  named('light.cafe', 'Café Lights'),
  named('switch.kids_room', "Kid's Room"),
];
