import { serveThreadTask } from '../../src/legion/thread.js';
import { scanObjects } from './scan.js';

/**
 * Entry point of calendar_read's parsing threads (node:worker_threads): the SDK's thread pool
 * (read.ts through tool.ts) runs each call's `scanObjects` here under a heap and a time
 * bound, so no calendar object can hang or grow the worker. Loaded from the compiled dist/
 * tree only, as the build's bundle of it when fresh (`compiledScriptUrl`, ADR 0104).
 */
serveThreadTask(scanObjects);
