#!/usr/bin/env node
import { isBundleFresh } from '../process/bundle-fresh.js';
import { beatForSupervisor } from './stack/heartbeat.js';

// Under `caesar up`, say this process runs from the first moment (ADR 0070).
beatForSupervisor();

// The `caesar` bin. It runs `cli.js` from the bundle the build makes (`cli.bundle.js`,
// scripts/bundle.mjs; ADR 0047): the command declarations and commander in one file,
// and the client commands' runners in a chunk of their own, instead of ~200 modules. Only
// a bundle not older than the last compile runs; otherwise the modules load one by one.

const bundle = new URL('./cli.bundle.js', import.meta.url);
const compiled = new URL('../../.tsbuildinfo', import.meta.url);
await import(isBundleFresh(bundle, compiled) ? bundle.href : './program/cli.js');
