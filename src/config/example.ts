import { yamlFlowText } from '../text/index.js';
import { REGENERATE_COMMAND } from './reference.js';
import { defaultText, envText, wrap } from './render-values.js';
import { configTree, type ConfigNode } from './walk.js';

const WIDTH = 92;

const HEADER = [
  'CAESAR configuration: every key, with its default.',
  '',
  `Generated from the config schema (src/config/schema.ts) by ${REGENERATE_COMMAND};`,
  'docs/configuration.md explains each key. Copy this file to ./caesar.yaml (or point',
  '--config or CAESAR_CONFIG at it) and change what you need. Keys left out, or left without a',
  'value, take their defaults; commented-out keys have no fixed default.',
];

/** config/caesar.example.yaml, rendered from {@link ConfigSchema}: loads to the defaults. */
export function renderExampleConfig(): string {
  const blocks = configTree().children.map((node) => renderNode(node, ''));
  return `${[HEADER.map((l) => `#${l === '' ? '' : ` ${l}`}`).join('\n'), ...blocks].join('\n\n')}\n`;
}

function renderNode(node: ConfigNode, indent: string): string {
  const key = node.path.at(-1) ?? '';
  const lines = comment(node, indent);
  if (node.type === 'section') {
    lines.push(`${indent}${key}:`);
    const children = node.children.map((c) => renderNode(c, `${indent}  `));
    return `${lines.join('\n')}\n${children.join('\n\n')}`;
  }
  if (node.type === 'map') {
    lines.push(`${indent}${key}:`);
    const example = node.meta.example ?? '';
    for (const line of example.split('\n')) lines.push(`${indent}  # ${line}`);
    const children = node.children.map((c) => renderNode(c, `${indent}  `));
    return [lines.join('\n'), ...children].join('\n\n');
  }
  if (node.meta.defaultText === undefined && 'default' in node) {
    lines.push(`${indent}${key}: ${scalar(node.default)}`);
  } else {
    const example = node.meta.example ?? '';
    // a number's example is written as the number it stands for, not as a string
    const numeric =
      node.type === 'field' &&
      (node.kind === 'integer' || node.kind === 'number') &&
      example !== '';
    lines.push(`${indent}# ${key}: ${numeric ? example : scalar(example)}`);
  }
  return lines.join('\n');
}

function comment(node: ConfigNode, indent: string): string[] {
  const text = node.description.replaceAll('`', '');
  const facts = node.type === 'section' ? [] : [`Env: ${envText(node)}.`];
  if (node.type === 'field' && node.meta.defaultText !== undefined) {
    facts.unshift(`Default: ${(defaultText(node) ?? '').replaceAll('`', '')}.`);
  }
  const width = WIDTH - indent.length - 2;
  return [...wrap(text, width), ...wrap(facts.join(' '), width)].map((l) => `${indent}# ${l}`);
}

function scalar(value: unknown): string {
  return yamlFlowText(value);
}
