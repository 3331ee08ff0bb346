import { describe, expect, test } from 'vitest';
import { evalThreadUrl } from '../../../workers/calculator/thread-url.js';

describe('evalThreadUrl', () => {
  test('from compiled dist/ it is the eval-thread.js next to the module', () => {
    const url = evalThreadUrl('file:///app/dist/workers/calculator/thread-url.js');
    expect(url.href).toBe('file:///app/dist/workers/calculator/eval-thread.js');
  });

  test('from TypeScript sources it is the compiled twin under dist/', () => {
    const url = evalThreadUrl('file:///app/workers/calculator/thread-url.ts');
    expect(url.href).toBe('file:///app/dist/workers/calculator/eval-thread.js');
  });
});
